// Mesh files are data, never programs. Before any reader sees a file it is opened as a regular
// file of bounded size and its format is decided from its bytes (not from its name):
//   - binary STL: 80-byte header, uint32 triangle count n, and exactly 84 + 50 n bytes;
//   - ASCII STL: starts with "solid" and reads as text;
//   - Wavefront OBJ: text whose first statement is an OBJ keyword (v, vt, vn, f, o, g, ...);
//   - Gmsh MSH (versions 2 and 4.1, ASCII): starts with "$MeshFormat";
//   - legacy VTK (ASCII unstructured grid): starts with "# vtk DataFile Version".
// Everything else is refused, Gmsh scripts (.geo) in particular, whatever the file is called.
// The extension must be one of .stl, .obj, .msh, .vtk (any case) and agree with the content, so a
// renamed or mislabelled file is an error rather than a guess. Every error is one line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace etdem {

enum class MeshFormat { StlAscii, StlBinary, Obj, Msh, Vtk };

/// "ASCII STL", "binary STL", "OBJ", "Gmsh MSH", "legacy VTK".
const char* mesh_format_name(MeshFormat format);

/// Mesh files larger than this are refused before being read.
constexpr std::uintmax_t kMaxMeshFileBytes = std::uintmax_t{512} << 20;

/// The whole content of `path`. Throws std::runtime_error "PATH: reason" when the path holds a
/// NUL byte, does not exist, is a directory or another non-regular file (a FIFO, a device), is
/// larger than max_bytes, or cannot be read.
std::string read_mesh_file(const std::string& path, std::uintmax_t max_bytes = kMaxMeshFileBytes);

/// The format of a mesh file's bytes. Throws std::invalid_argument saying what was found (a Gmsh
/// script, binary data whose size does not match a binary STL, text of no known format, ...).
MeshFormat sniff_mesh_format(std::string_view bytes);

/// Throws std::invalid_argument unless the extension of `path` is .stl, .obj, .msh or .vtk (any
/// case) and names `format`.
void check_mesh_extension(const std::string& path, MeshFormat format);

/// `text` with control characters, quotes and non-ASCII bytes escaped (\n, \0, \xNN) and cut to
/// max_chars (then "..."): safe to put in a one-line message.
std::string printable(std::string_view text, std::size_t max_chars = 40);

/// A cursor over the text of a mesh file: whitespace-separated tokens, line numbers, strict
/// numbers. Errors are std::invalid_argument "line N: message".
class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}

  /// The next token (empty at the end of the text); newlines are skipped.
  std::string_view token();
  /// The next token without consuming it.
  std::string_view peek();
  /// The rest of the current line (without the newline), consumed.
  std::string_view rest_of_line();
  /// True when only whitespace is left.
  bool at_end();
  /// Bytes not yet consumed (an upper bound for what declared counts may still need).
  std::size_t remaining() const { return text_.size() - pos_; }
  /// Jumps past the next occurrence of `marker` at the start of a line; false if there is none.
  bool skip_past_line_starting(std::string_view marker);
  int line() const { return line_; }

  /// The next token, which must equal `word` (ASCII case-insensitive when `any_case`).
  void expect(std::string_view word, bool any_case = false);
  /// The next token as a finite double / an integer in [lo, hi]; `what` names it in errors.
  double number(std::string_view what);
  /// A double that may be nan or inf (values that are read and dropped).
  double any_number(std::string_view what);
  long long integer(std::string_view what, long long lo, long long hi);
  /// Throws unless `count` records of at least `bytes_each` bytes fit in what is left.
  void check_fits(unsigned long long count, std::size_t bytes_each, std::string_view what);

  [[noreturn]] void fail(std::string_view message) const;
  /// "expected WHAT, found 'TOKEN'" (or "the file ends where WHAT is expected").
  [[noreturn]] void fail_found(std::string_view what, std::string_view token) const;

 private:
  void skip_space();
  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

bool iequals(std::string_view a, std::string_view b);

}  // namespace etdem
