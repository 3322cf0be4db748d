// A table whose rows live in a temporary file, encoded compactly (a null bitmap, then each value:
// integers as zigzag varints, text and blobs with their length), and which SQLite reads through a
// virtual table (record_module.h). Appending a row costs a few hundred bytes of memcpy, against
// the microsecond of an SQLite b-tree insert: what lets a load keep up with reading the log.
// Rows are numbered from 1 in the order they were added; that number is the table's first column
// (its id), which is not stored.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "query/block_reader.h"

namespace rastrace::query {

enum class ValueType : uint8_t { kInt, kText, kBlob };

struct RecordColumn {
  std::string name;
  ValueType type = ValueType::kInt;
};

// One decoded value.
struct RecordValue {
  bool null = true;
  int64_t number = 0;
  std::string_view bytes;  // text or blob, valid until the next read
};

class RecordTable {
 public:
  // `columns`: every column after the id, which is called `id_name`.
  static Result<std::unique_ptr<RecordTable>> Create(std::string name,
                                                     std::vector<RecordColumn> columns,
                                                     std::string id_name = "id");
  ~RecordTable();

  // The values of one row, in column order (the id excluded); EndRow completes it.
  void Int(int64_t value) {
    Mark(false);
    Varint((static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
  }
  void Null() { Mark(true); }
  void Text(std::string_view text) { Bytes(text.data(), text.size()); }
  void Blob(std::span<const uint8_t> bytes) { Bytes(bytes.data(), bytes.size()); }
  template <class T>
  void Optional(const std::optional<T>& value) {
    if (value) {
      Int(static_cast<int64_t>(*value));
    } else {
      Null();
    }
  }
  void TextOrNull(std::string_view text) {
    if (text.empty()) {
      Null();
    } else {
      Text(text);
    }
  }
  Result<void> EndRow();
  // Makes the rows added so far readable; later rows need another Finish.
  Result<void> Finish();

  const std::string& name() const { return name_; }
  const std::string& id_name() const { return id_name_; }
  const std::vector<RecordColumn>& columns() const { return columns_; }
  uint64_t rows() const { return readable_rows_; }

  // Reads rows in order: Seek to a row (from 0), then Next moves on. Values are decoded into
  // `values` (one per column), valid until the next call.
  class Reader {
   public:
    explicit Reader(RecordTable& table) : table_(table) {}
    Result<void> Seek(uint64_t row);
    Result<void> Next() { return Seek(row_ + 1); }
    uint64_t row() const { return row_; }
    const std::vector<RecordValue>& values() const { return values_; }

   private:
    Result<void> DecodeAt();
    RecordTable& table_;
    uint64_t row_ = UINT64_MAX;
    uint64_t offset_ = 0;       // of row_ in the file
    uint64_t next_offset_ = 0;  // of row_ + 1
    std::vector<RecordValue> values_;
    std::string bytes_;  // the current row's bytes (values point into it)
  };

 private:
  static constexpr size_t kBufferBytes = 1 << 20;
  // Every this many rows the file offset is kept, so a row is found by decoding at most this many.
  static constexpr uint64_t kSparseEvery = 64;
  RecordTable(int fd, std::string name, std::vector<RecordColumn> columns, std::string id_name);
  void Mark(bool null) {
    if (null) row_.nulls[column_ / 8] |= static_cast<uint8_t>(1u << (column_ % 8));
    ++column_;
  }
  // Room for `size` more bytes of the row at row_.used.
  char* Room(size_t size) {
    if (row_.used + size > row_.body.size()) row_.body.resize((row_.used + size) * 2);
    return row_.body.data() + row_.used;
  }
  void Varint(uint64_t value) {
    char* out = Room(10);
    size_t n = 0;
    while (value >= 0x80) {
      out[n++] = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    out[n++] = static_cast<char>(value);
    row_.used += n;
  }
  void Bytes(const void* data, size_t size) {
    Mark(false);
    Varint(size);
    if (size > 0) std::memcpy(Room(size), data, size);
    row_.used += size;
  }
  Result<void> FlushBuffer();

  int fd_ = -1;
  std::string name_;
  std::vector<RecordColumn> columns_;
  std::string id_name_;
  struct Row {
    std::vector<uint8_t> nulls;
    std::vector<char> body;  // the values; bytes [0, used) hold this row's
    size_t used = 0;
  } row_;
  size_t column_ = 0;
  std::string buffer_;
  uint64_t rows_ = 0;             // added
  uint64_t readable_rows_ = 0;    // finished
  uint64_t file_bytes_ = 0;       // written to the file, with the buffer
  std::vector<uint64_t> sparse_;  // offset of rows 0, kSparseEvery, ...
  std::unique_ptr<BlockReader> reader_;
};

}  // namespace rastrace::query
