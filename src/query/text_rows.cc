// _event_text: what the log's templates print for each event (the text column of events). The
// costliest part of a load, so a pass fills it only when a statement reads it.
#include "query/text_rows.h"

namespace rastrace::query {

namespace {

class TextFiller : public Filler {
 public:
  TextFiller(RecordTable& rows, exporter::TemplateText& templates,
             const exporter::MergedStream& stream)
      : rows_(rows), templates_(templates), stream_(stream) {
    first_ns_.resize(stream.input_count());
    have_first_.resize(stream.input_count());
  }

  Result<void> Add(const LoadedEvent& row) override {
    const exporter::SourceEvent& item = *row.item;
    // Timers count from each log's own first timestamp, as trcrpt and the exports do.
    if (!have_first_[item.input] && row.event->timestamped) {
      have_first_[item.input] = true;
      first_ns_[item.input] = item.time_ns;
    }
    const auto out = templates_.Run(item, stream_.reader(item.input).name(), row.origin->processes,
                                    first_ns_[item.input], static_cast<uint64_t>(row.id));
    // Row n is event n + 1's text (text passes read every event, in order).
    rows_.Text(out.text);
    return rows_.EndRow();
  }

  Result<void> Finish(int64_t) override { return rows_.Finish(); }

 private:
  RecordTable& rows_;
  exporter::TemplateText& templates_;
  const exporter::MergedStream& stream_;
  std::vector<uint64_t> first_ns_;
  std::vector<bool> have_first_;
};

}  // namespace

std::unique_ptr<Filler> MakeTextFiller(RecordTable& text, exporter::TemplateText& templates,
                                       const exporter::MergedStream& stream) {
  return std::make_unique<TextFiller>(text, templates, stream);
}

}  // namespace rastrace::query
