#include "reporter/cli/progress_line.h"

#include <cmath>
#include <string>

#include "reporter/base/units.h"

namespace vprof::reporter {
namespace {

constexpr std::chrono::seconds kQuietFor{1};
constexpr std::chrono::milliseconds kRedrawEvery{200};

double Seconds(ProgressLine::Clock::duration span) {
  return std::chrono::duration<double>(span).count();
}

// "12 s", "3 min": a duration to the second, or the minute past ten minutes.
std::string Rounded(double seconds) {
  if (seconds < 600) return std::to_string(std::lround(std::max(seconds, 1.0))) + " s";
  return std::to_string(std::lround(seconds / 60)) + " min";
}

}  // namespace

ProgressLine::ProgressLine(std::ostream& err, bool enabled, uint64_t total_bytes)
    : err_(err), enabled_(enabled), total_bytes_(total_bytes), start_(Clock::now()) {}

void ProgressLine::Reading(const MergeProgress& progress, Clock::time_point now) {
  files_ = progress.files;
  if (!enabled_ || now - start_ < kQuietFor || (drawn_ && now - last_drawn_ < kRedrawEvery)) {
    return;
  }
  std::string text = "vprof: reading " + FormatCount(progress.files, "trace", "traces") + ": " +
                     std::to_string(progress.files_done) + " read, " +
                     FormatBytes(progress.bytes_read) + " of " + FormatBytes(total_bytes_);
  // The time left, at the rate so far; reading is most of a report's work.
  if (progress.bytes_read > 0 && progress.bytes_read < total_bytes_) {
    const double elapsed = Seconds(now - start_);
    const double left =
        elapsed * static_cast<double>(total_bytes_ - progress.bytes_read) / progress.bytes_read;
    text += ", about " + Rounded(left) + " left";
  }
  Draw(text, now);
}

void ProgressLine::Analyzing(Clock::time_point now) {
  if (!enabled_ || now - start_ < kQuietFor) return;
  Draw("vprof: " + FormatCount(files_, "trace", "traces") + " read in " +
           Rounded(Seconds(now - start_)) + "; analyzing",
       now);
}

void ProgressLine::Draw(const std::string& text, Clock::time_point now) {
  // Carriage return, the text, erase to the end of the line: one line, rewritten.
  err_ << '\r' << text << "\x1b[K" << std::flush;
  drawn_ = true;
  last_drawn_ = now;
}

void ProgressLine::Erase() {
  if (!drawn_) return;
  err_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace vprof::reporter
