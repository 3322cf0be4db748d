#include "export/export_run.h"

#include <vector>

namespace rastrace::exporter {

Result<ExportSummary> RunExport(MergedStream& stream, Exporter& exporter, TemplateText* templates,
                                Progress* progress) {
  ExportSummary summary;
  std::vector<ProcessTable> tables;  // by origin
  std::vector<uint64_t> first_ns(stream.input_count(), 0);
  std::vector<bool> have_first(stream.input_count(), false);
  SourceEvent item;
  ExportRecord record;
  record.item = &item;
  while (stream.Next(item) == event::ReadStatus::kEvent) {
    const event::Event& e = *item.event;
    if (tables.size() <= item.origin) tables.resize(stream.origins().size());
    ProcessTable& table = tables[item.origin];
    table.Observe(e, item.byte_order);
    if (!have_first[item.input] && e.timestamped) {
      have_first[item.input] = true;
      first_ns[item.input] = item.time_ns;
    }

    record.origin_name = stream.origins()[item.origin].name;
    record.sequence = summary.events;
    record.pid = table.PidOf(e.thread_id);
    record.exec_path = record.pid ? table.ExecPath(*record.pid) : std::string_view();
    record.thread_name = table.ThreadName(e.thread_id);
    record.processes = &table;
    record.has_text = templates != nullptr;
    if (templates != nullptr) {
      const auto out = templates->Run(item, stream.reader(item.input).name(), table,
                                      first_ns[item.input], summary.events + 1);
      record.label = out.label;
      record.text = out.text;
    }
    if (auto written = exporter.Write(record); !written.ok()) return written.error();
    ++summary.events;
    if (progress != nullptr) progress->Update(stream.bytes_read(), summary.events);
  }
  if (auto finished = exporter.Finish(); !finished.ok()) return finished.error();
  return summary;
}

}  // namespace rastrace::exporter
