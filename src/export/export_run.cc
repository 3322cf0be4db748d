#include "export/export_run.h"

#include <unordered_map>
#include <vector>

#include "event/format.h"

namespace rastrace::exporter {

Result<ExportSummary> RunExport(MergedStream& stream, Exporter& exporter, TemplateText* templates,
                                schema::Decoder& decoder, Progress* progress) {
  ExportSummary summary;
  std::vector<ProcessTable> tables;  // by origin
  // By origin: thread id -> the CPU its following events run on (00A/108, written when the
  // thread changes CPU). Grows with the number of threads, like the process table.
  std::vector<std::unordered_map<uint64_t, uint32_t>> cpus;
  std::vector<uint64_t> first_ns(stream.input_count(), 0);
  std::vector<bool> have_first(stream.input_count(), false);
  SourceEvent item;
  ExportRecord record;
  record.item = &item;
  while (stream.Next(item) == event::ReadStatus::kEvent) {
    const event::Event& e = *item.event;
    if (tables.size() <= item.origin) {
      tables.resize(stream.origins().size());
      cpus.resize(stream.origins().size());
    }
    ProcessTable& table = tables[item.origin];
    table.Observe(e, item.byte_order);
    auto& thread_cpus = cpus[item.origin];
    if (!e.generic && e.word_count >= 1 && UtilitySubhook(e) == event::kUtilCpu) {
      thread_cpus[e.thread_id] = static_cast<uint32_t>(e.words[0]);
    }
    if (!have_first[item.input] && e.timestamped) {
      have_first[item.input] = true;
      first_ns[item.input] = item.time_ns;
    }

    record.origin_name = stream.origins()[item.origin].name;
    record.sequence = summary.events;
    record.pid = table.PidOf(e.thread_id);
    record.exec_path = record.pid ? table.ExecPath(*record.pid) : std::string_view();
    record.thread_name = table.ThreadName(e.thread_id);
    const auto cpu = thread_cpus.find(e.thread_id);
    record.cpu = cpu == thread_cpus.end() ? std::nullopt : std::optional<uint32_t>(cpu->second);
    record.processes = &table;
    record.has_text = templates != nullptr;
    if (templates != nullptr) {
      const auto out = templates->Run(item, stream.reader(item.input).name(), table,
                                      first_ns[item.input], summary.events + 1);
      record.label = out.label;
      record.text = out.text;
    }
    const auto decoded = decoder.Decode(e, item.byte_order, item.trace_layout);
    record.schema = decoded.schema;
    record.values = decoded.values;
    if (auto written = exporter.Write(record); !written.ok()) return written.error();
    ++summary.events;
    if (progress != nullptr) progress->Update(stream.bytes_read(), summary.events);
  }
  if (auto finished = exporter.Finish(); !finished.ok()) return finished.error();
  return summary;
}

Result<ExportSummary> RunExport(MergedStream& stream, Exporter& exporter, TemplateText* templates,
                                Progress* progress) {
  schema::Decoder decoder({});
  return RunExport(stream, exporter, templates, decoder, progress);
}

}  // namespace rastrace::exporter
