#include "export/table_exporters.h"

#include <fmt/format.h>

#include <iterator>

#include "export/text_escape.h"

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
  return "seq,source,offset,time_ns,timestamped,ticks,hook,template,subhook,generic,data32,pid,"
         "tid,cpu,exec,thread,word_count,word1,word2,word3,word4,word5,data_word,buffer,label,"
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

CsvExporter::CsvExporter(OutputFile file) : file_(std::move(file)) {
  file_.Write(CsvHeader());
}

Result<void> CsvExporter::Write(const ExportRecord& record) {
  line_.clear();
  AppendCsvRow(line_, record);
  file_.Write(line_);
  return Ok();
}

}  // namespace rastrace::exporter
