#include "export/table_exporters.h"

#include <fmt/format.h>

#include <filesystem>
#include <iterator>

#include "export/field_text.h"
#include "export/text_escape.h"
#include "schema/names.h"

namespace rastrace::exporter {

namespace {

void AppendUnsigned(std::string& out, uint64_t value) {
  const fmt::format_int text(value);  // no locale, no allocation
  out.append(text.data(), text.size());
}

const char* Bool(bool value) {
  return value ? "true" : "false";
}

}  // namespace

std::string_view CsvHeader() {
  return "seq,source,offset,time_ns,timestamped,ticks,hook,template,event,subhook,generic,data32,"
         "pid,tid,cpu,exec,thread,word_count,word1,word2,word3,word4,word5,data_word,buffer,label,"
         "text\n";
}

void AppendJsonLine(std::string& out, const ExportRecord& r) {
  const event::Event& e = *r.item->event;
  out.append("{\"seq\":");
  AppendUnsigned(out, r.sequence);
  out.append(",\"source\":");
  AppendJsonString(out, r.origin_name);
  out.append(",\"offset\":");
  AppendUnsigned(out, e.offset);
  out.append(",\"time_ns\":");
  AppendUnsigned(out, r.item->time_ns);
  out.append(",\"timestamped\":");
  out.append(Bool(e.timestamped));
  out.append(",\"ticks\":");
  AppendUnsigned(out, e.timestamp);
  out.append(",\"hook\":\"");
  AppendHex4(out, e.hook_id);
  out.append("\",\"template\":\"");
  AppendTemplateId(out, e.hook_id);
  out.append("\",\"event\":\"");
  out.append(r.schema->name);  // an identifier: nothing to escape
  out.append("\",\"subhook\":\"");
  AppendHex4(out, e.subhook);
  out.append("\",\"generic\":");
  out.append(Bool(e.generic));
  out.append(",\"data32\":");
  out.append(Bool(e.data32));
  out.append(",\"pid\":");
  if (r.pid) {
    AppendUnsigned(out, *r.pid);
  } else {
    out.append("null");
  }
  out.append(",\"tid\":");
  AppendUnsigned(out, e.thread_id);
  out.append(",\"cpu\":");
  if (r.cpu) {
    AppendUnsigned(out, *r.cpu);
  } else {
    out.append("null");
  }
  out.append(",\"exec\":");
  AppendJsonString(out, r.exec_path);
  out.append(",\"thread\":");
  AppendJsonString(out, r.thread_name);
  out.append(",\"words\":[");
  for (unsigned i = 0; i < e.word_count && i < event::kMaxDataWords; ++i) {
    if (i > 0) out.push_back(',');
    out.push_back('"');
    AppendHexWord(out, e.words[i]);
    out.push_back('"');
  }
  out.append("],\"data_word\":");
  if (e.generic) {
    out.push_back('"');
    AppendHexWord(out, e.generic_word);
    out.append("\",\"buffer\":\"");
    AppendHex(out, e.buffer);
    out.push_back('"');
  } else {
    out.append("null,\"buffer\":null");
  }
  // The fields of the event's schema; a raw schema (nothing describes the event) would only repeat
  // words, data_word and buffer, so it has none here.
  out.append(",\"fields\":{");
  if (r.schema->family != schema::Family::kRaw) {
    AppendJsonFields(out, *r.schema, r.values, /*skip_absent=*/true);
  }
  out.push_back('}');
  if (r.has_text) {
    out.append(",\"label\":");
    AppendJsonString(out, r.label);
    out.append(",\"text\":");
    AppendJsonString(out, r.text);
  } else {
    out.append(",\"label\":null,\"text\":null");
  }
  out.append("}\n");
}

void AppendCsvRow(std::string& out, const ExportRecord& r) {
  const event::Event& e = *r.item->event;
  AppendUnsigned(out, r.sequence);
  out.push_back(',');
  AppendCsvField(out, r.origin_name);
  out.push_back(',');
  AppendUnsigned(out, e.offset);
  out.push_back(',');
  AppendUnsigned(out, r.item->time_ns);
  out.push_back(',');
  out.append(Bool(e.timestamped));
  out.push_back(',');
  AppendUnsigned(out, e.timestamp);
  out.push_back(',');
  AppendHex4(out, e.hook_id);
  out.push_back(',');
  AppendTemplateId(out, e.hook_id);
  out.push_back(',');
  out.append(r.schema->name);
  out.push_back(',');
  AppendHex4(out, e.subhook);
  out.push_back(',');
  out.append(Bool(e.generic));
  out.push_back(',');
  out.append(Bool(e.data32));
  out.push_back(',');
  if (r.pid) AppendUnsigned(out, *r.pid);
  out.push_back(',');
  AppendUnsigned(out, e.thread_id);
  out.push_back(',');
  if (r.cpu) AppendUnsigned(out, *r.cpu);
  out.push_back(',');
  AppendCsvField(out, r.exec_path);
  out.push_back(',');
  AppendCsvField(out, r.thread_name);
  out.push_back(',');
  AppendUnsigned(out, e.word_count);
  for (unsigned i = 0; i < event::kMaxDataWords; ++i) {
    out.push_back(',');
    if (i < e.word_count) AppendHexWord(out, e.words[i]);
  }
  out.push_back(',');
  if (e.generic) AppendHexWord(out, e.generic_word);
  out.push_back(',');
  if (e.generic) AppendHex(out, e.buffer);
  out.push_back(',');
  if (r.has_text) AppendCsvField(out, r.label);
  out.push_back(',');
  if (r.has_text) AppendCsvField(out, r.text);
  out.push_back('\n');
}

Result<void> JsonLinesExporter::Write(const ExportRecord& record) {
  line_.clear();
  AppendJsonLine(line_, record);
  file_.Write(line_);
  return Ok();
}

CsvExporter::CsvExporter(OutputFile file, std::string base, bool force)
    : file_(std::move(file)), base_(std::move(base)), force_(force) {
  file_.Write(CsvHeader());
}

std::string CsvExporter::TablePath(const std::string& base, std::string_view schema) {
  std::string_view stem = base;
  if (stem.size() > 4 && stem.substr(stem.size() - 4) == ".csv") stem.remove_suffix(4);
  return fmt::format("{}.{}.csv", stem, schema);
}

Result<OutputFile*> CsvExporter::TableFor(const schema::Schema& s) {
  if (tables_.size() <= s.id) tables_.resize(s.id + 1);
  auto& table = tables_[s.id];
  if (!table) {
    const std::string path = TablePath(base_, s.name);
    std::error_code ec;
    if (!force_ && std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
      return MakeError("{}: exists (the table of schema {}); use --force to replace it", path,
                       s.name);
    }
    auto file = OutputFile::Create(path, kTableBufferBytes);
    if (!file) return file.error();
    table = std::make_unique<OutputFile>(std::move(file).value());
    ++open_tables_;
    // seq joins the file of every event (source, thread, pid, cpu...); a field that has the name
    // of one of the two first columns is numbered (seq_2).
    std::vector<std::string> names = {"seq", "time_ns"};
    for (const auto& field : s.fields) names.push_back(field.name);
    schema::MakeUnique(names);
    std::string header;
    for (const auto& name : names) {
      if (!header.empty()) header += ',';
      header += name;
    }
    header += '\n';
    table->Write(header);
  } else if (table->suspended()) {
    if (auto resumed = table->Resume(); !resumed) return resumed.error();
    ++open_tables_;
  }
  // Keep few files open (a session log has a schema per system call): the least recently used
  // one is closed for now and opened again, appending, when its schema comes back.
  if (recent_.empty() || recent_.front() != s.id) {
    recent_.remove(s.id);
    recent_.push_front(s.id);
  }
  while (open_tables_ > kMaxOpenTables) {
    const uint32_t oldest = recent_.back();
    recent_.pop_back();
    if (auto suspended = tables_[oldest]->Suspend(); !suspended) return suspended.error();
    --open_tables_;
  }
  return table.get();
}

Result<void> CsvExporter::Write(const ExportRecord& record) {
  line_.clear();
  AppendCsvRow(line_, record);
  file_.Write(line_);
  if (base_ == "-") return Ok();
  auto table = TableFor(*record.schema);
  if (!table) return table.error();
  line_.clear();
  AppendUnsigned(line_, record.sequence);
  line_.push_back(',');
  AppendUnsigned(line_, record.item->time_ns);
  for (size_t i = 0; i < record.schema->fields.size(); ++i) {
    line_.push_back(',');
    AppendCsvValue(line_, record.schema->fields[i], record.values[i]);
  }
  line_.push_back('\n');
  (*table)->Write(line_);
  return Ok();
}

Result<void> CsvExporter::Finish() {
  Result<void> status = file_.Close();
  for (auto& table : tables_) {
    if (!table) continue;
    if (auto closed = table->Close(); !closed && status.ok()) status = closed;
  }
  return status;
}

uint64_t CsvExporter::bytes_written() const {
  uint64_t total = file_.bytes_written();
  for (const auto& table : tables_) {
    if (table) total += table->bytes_written();
  }
  return total;
}

}  // namespace rastrace::exporter
