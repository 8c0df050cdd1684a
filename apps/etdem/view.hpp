// `etdem view DIR`: opens a run in ParaView by running tools/paraview_view.py with ParaView's
// pvpython (docs/scenario.md, "etdem view"):
//   etdem view DIR                      writes DIR/view.pvsm and opens it in the ParaView window
//   etdem view DIR --png OUTDIR         one PNG per frame, OUTDIR/frame_SSSSSS.png
//   etdem view DIR --png-last FILE      the last frame as a PNG
// Without a display (DISPLAY unset) the PNGs are rendered under xvfb-run.
#pragma once

#include <string>
#include <vector>

namespace etdem {

struct ViewOptions {
  std::string directory;
  std::string png;                  // --png OUTDIR
  std::string png_last;             // --png-last FILE
  std::vector<int> size;            // --size W H
  std::vector<double> speed_range;  // --speed-range MIN MAX
};

/// Runs the viewer; returns the exit code (0, or 1 when ParaView, the display or the script is
/// missing or the viewer fails). Throws InputError when DIR holds no frames.
int view_run(const ViewOptions& options);

}  // namespace etdem
