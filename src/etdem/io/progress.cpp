#include "etdem/io/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace etdem {
namespace {

std::string clock_text(double seconds) {
  if (!(seconds >= 0.0) || seconds > 1e7) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02d}:{:02d}", s / 3600, (s / 60) % 60, s % 60)
                   : fmt::format("{:02d}:{:02d}", s / 60, s % 60);
}

}  // namespace

Progress::Progress(long total_steps, bool enabled)
    : total_(total_steps),
      enabled_(enabled && isatty(fileno(stderr))),
      start_(Clock::now()),
      last_(start_) {}

Progress::~Progress() {
  finish();
}

void Progress::update(long step, double time) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - last_ < std::chrono::milliseconds(250) && step < total_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0.0 ? step / elapsed : 0.0;
  const double eta = rate > 0.0 ? (total_ - step) / rate : -1.0;
  std::fputs(fmt::format("\rstep {}/{}  t = {:.4g} s  {:.1f} steps/s  ETA {}   ", step, total_,
                         time, rate, clock_text(eta))
                 .c_str(),
             stderr);
  std::fflush(stderr);
  shown_ = true;
}

void Progress::finish() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace etdem
