#include "query/record_table.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "query/event_store.h"

namespace rastrace::query {

namespace {

// A varint at the start of `bytes`: its value and size; size 0 when it does not end in them.
std::pair<uint64_t, size_t> ReadVarint(std::span<const uint8_t> bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size() && i < 10; ++i) {
    value |= static_cast<uint64_t>(bytes[i] & 0x7F) << (7 * i);
    if ((bytes[i] & 0x80) == 0) return {value, i + 1};
  }
  return {0, 0};
}

}  // namespace

RecordTable::RecordTable(int fd, std::string name, std::vector<RecordColumn> columns,
                         std::string id_name)
    : fd_(fd), name_(std::move(name)), columns_(std::move(columns)), id_name_(std::move(id_name)) {
  row_.nulls.assign((columns_.size() + 7) / 8, 0);
}

RecordTable::~RecordTable() {
  if (fd_ >= 0) close(fd_);
}

Result<std::unique_ptr<RecordTable>> RecordTable::Create(std::string name,
                                                         std::vector<RecordColumn> columns,
                                                         std::string id_name) {
  auto fd = CreateTemporaryFile();
  if (!fd) return fd.error();
  return std::unique_ptr<RecordTable>(
      new RecordTable(*fd, std::move(name), std::move(columns), std::move(id_name)));
}

Result<void> RecordTable::EndRow() {
  if (column_ != columns_.size()) {
    return MakeError("internal error: a row of {} has {} values for {} columns", name_, column_,
                     columns_.size());
  }
  if (rows_ % kSparseEvery == 0) sparse_.push_back(file_bytes_ + buffer_.size());
  uint64_t size = row_.nulls.size() + row_.used;
  while (size >= 0x80) {
    buffer_.push_back(static_cast<char>(size | 0x80));
    size >>= 7;
  }
  buffer_.push_back(static_cast<char>(size));
  buffer_.append(reinterpret_cast<const char*>(row_.nulls.data()), row_.nulls.size());
  buffer_.append(row_.body.data(), row_.used);
  std::fill(row_.nulls.begin(), row_.nulls.end(), 0);
  row_.used = 0;
  column_ = 0;
  ++rows_;
  if (buffer_.size() >= kBufferBytes) return FlushBuffer();
  return Ok();
}

Result<void> RecordTable::FlushBuffer() {
  const char* data = buffer_.data();
  size_t size = buffer_.size();
  while (size > 0) {
    const ssize_t n = pwrite(fd_, data, size, static_cast<off_t>(file_bytes_));
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError("writing the {} table's temporary file: {}", name_, std::strerror(errno));
    }
    data += n;
    size -= static_cast<size_t>(n);
    file_bytes_ += static_cast<uint64_t>(n);
  }
  buffer_.clear();
  return Ok();
}

Result<void> RecordTable::Finish() {
  if (auto flushed = FlushBuffer(); !flushed) return flushed;
  if (!reader_) reader_ = std::make_unique<BlockReader>(fd_, name_ + "'s temporary file");
  reader_->Invalidate();
  readable_rows_ = rows_;
  return Ok();
}

Result<void> RecordTable::Reader::Seek(uint64_t row) {
  if (row >= table_.readable_rows_) {
    return MakeError("internal error: row {} of {} rows of {}", row, table_.readable_rows_,
                     table_.name_);
  }
  BlockReader& file = *table_.reader_;
  uint64_t at = 0;
  uint64_t from = 0;
  if (row_ != UINT64_MAX && row > row_ && row - row_ <= kSparseEvery) {
    at = next_offset_;
    from = row_ + 1;
  } else if (row_ != UINT64_MAX && row == row_) {
    return Ok();
  } else {
    from = row / kSparseEvery * kSparseEvery;
    at = table_.sparse_[row / kSparseEvery];
  }
  // Step over the rows before the one wanted by their lengths.
  for (; from < row; ++from) {
    auto head = file.ReadUpTo(at, 10);
    if (!head) return head.error();
    const auto [size, used] = ReadVarint(*head);
    if (used == 0) return MakeError("{}: damaged temporary file at {}", table_.name_, at);
    at += used + size;
  }
  offset_ = at;
  row_ = row;
  return DecodeAt();
}

Result<void> RecordTable::Reader::DecodeAt() {
  BlockReader& file = *table_.reader_;
  auto head = file.ReadUpTo(offset_, 10);
  if (!head) return head.error();
  const auto [size, used] = ReadVarint(*head);
  if (used == 0) return MakeError("{}: damaged temporary file at {}", table_.name_, offset_);
  auto body = file.Read(offset_ + used, size);
  if (!body) return body.error();
  bytes_.assign(reinterpret_cast<const char*>(body->data()), body->size());
  next_offset_ = offset_ + used + size;
  const auto& columns = table_.columns_;
  values_.resize(columns.size());
  const size_t null_bytes = (columns.size() + 7) / 8;
  if (bytes_.size() < null_bytes) return MakeError("{}: damaged row {}", table_.name_, row_);
  std::span<const uint8_t> rest(reinterpret_cast<const uint8_t*>(bytes_.data()) + null_bytes,
                                bytes_.size() - null_bytes);
  for (size_t c = 0; c < columns.size(); ++c) {
    RecordValue& v = values_[c];
    v.null = (static_cast<uint8_t>(bytes_[c / 8]) >> (c % 8)) & 1;
    if (v.null) continue;
    const auto [value, length] = ReadVarint(rest);
    if (length == 0) return MakeError("{}: damaged row {}", table_.name_, row_);
    rest = rest.subspan(length);
    if (columns[c].type == ValueType::kInt) {
      v.number = static_cast<int64_t>((value >> 1) ^ (~(value & 1) + 1));
    } else {
      if (value > rest.size()) return MakeError("{}: damaged row {}", table_.name_, row_);
      v.bytes = std::string_view(reinterpret_cast<const char*>(rest.data()), value);
      rest = rest.subspan(value);
    }
  }
  return Ok();
}

}  // namespace rastrace::query
