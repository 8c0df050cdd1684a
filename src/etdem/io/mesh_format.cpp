#include "etdem/io/mesh_format.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace etdem {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

/// Text: no NUL and few other control bytes in the first 4 kB.
bool looks_like_text(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 4096);
  std::size_t odd = 0;
  for (unsigned char c : head) {
    if (c == 0) return false;
    if (c < 0x20 && !is_space(static_cast<char>(c))) ++odd;
  }
  return odd * 100 <= head.size();
}

std::uint32_t le32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return std::uint32_t{u[0]} | std::uint32_t{u[1]} << 8 | std::uint32_t{u[2]} << 16 |
         std::uint32_t{u[3]} << 24;
}

/// The first statement of a text, skipping blank lines and '#' comments.
std::string_view first_word(std::string_view text) {
  TextCursor c(text);
  for (;;) {
    const std::string_view t = c.token();
    if (t.empty() || t[0] != '#') return t;
    c.rest_of_line();
  }
}

/// Words that only a Gmsh script (.geo) holds; used to name what was refused.
bool looks_like_gmsh_script(std::string_view text) {
  static constexpr std::string_view kWords[] = {
      "SystemCall", "Point(",   "Point (",  "Merge ",     "Include ",      "Geometry.",
      "Mesh.",      "General.", "Physical", "Line(",      "Surface(",      "Volume(",
      "Extrude",    "Macro ",   "For ",     "SetFactory", "Plane Surface", "Curve Loop"};
  const std::string_view head = text.substr(0, 65536);
  return std::any_of(std::begin(kWords), std::end(kWords),
                     [&](std::string_view w) { return head.find(w) != std::string_view::npos; });
}

constexpr std::string_view kObjKeywords[] = {"v", "vt", "vn",     "vp",     "f", "o",
                                             "g", "s",  "usemtl", "mtllib", "l", "p"};

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

const char* mesh_format_name(MeshFormat format) {
  switch (format) {
    case MeshFormat::StlAscii:
      return "ASCII STL";
    case MeshFormat::StlBinary:
      return "binary STL";
    case MeshFormat::Obj:
      return "OBJ";
    case MeshFormat::Msh:
      return "Gmsh MSH";
    case MeshFormat::Vtk:
      return "legacy VTK";
  }
  return "?";
}

std::string printable(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c == 0)
      out += "\\0";
    else if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

std::string read_mesh_file(const std::string& path, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}: {}", printable(path, 200), why));
  };
  if (path.find('\0') != std::string::npos) fail("the file name holds a NUL byte");
  if (path.empty()) fail("no file name");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) fail("no such file");
  if (ec) fail(fmt::format("cannot be examined ({})", ec.message()));
  if (st.type() == fs::file_type::directory) fail("is a directory, not a mesh file");
  if (st.type() != fs::file_type::regular)
    fail("is not a regular file (a device, FIFO or socket is never read as a mesh)");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(fmt::format("cannot be examined ({})", ec.message()));
  if (size > max_bytes)
    fail(fmt::format("{} bytes: larger than the {} bytes a mesh file may have", size, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot be opened for reading");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size))
    fail("cannot be read (it changed size while being read)");
  return bytes;
}

[[noreturn]] static void refuse(const std::string& why) {
  throw std::invalid_argument(why);
}

MeshFormat sniff_mesh_format(std::string_view bytes) {
  if (bytes.empty()) refuse("the file is empty");
  // A binary STL is known by its size; its header may start with "solid" too.
  const bool binary_size =
      bytes.size() >= 84 && bytes.size() == 84 + 50 * std::uint64_t{le32(bytes.data() + 80)};
  const bool text = looks_like_text(bytes);
  std::string_view head = bytes;
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);  // UTF-8 byte order mark
  while (!head.empty() && is_space(head.front())) head.remove_prefix(1);
  if (text && head.starts_with("$MeshFormat")) return MeshFormat::Msh;
  if (text && starts_with_ci(head, "# vtk DataFile Version")) return MeshFormat::Vtk;
  if (text && starts_with_ci(head, "solid") && (head.size() == 5 || is_space(head[5]))) {
    const std::string_view start = head.substr(0, 4096);
    if (!binary_size || start.find("facet") != std::string_view::npos ||
        start.find("endsolid") != std::string_view::npos)
      return MeshFormat::StlAscii;
  }
  if (binary_size && le32(bytes.data() + 80) > 0) return MeshFormat::StlBinary;
  if (text && looks_like_gmsh_script(bytes))
    refuse(
        "a Gmsh script (.geo), not mesh data: etdem never runs scripts; mesh it with gmsh and "
        "give the .msh file");
  if (text) {
    const std::string_view w = first_word(head);
    if (std::find(std::begin(kObjKeywords), std::end(kObjKeywords), w) != std::end(kObjKeywords))
      return MeshFormat::Obj;
    refuse(fmt::format(
        "text of no mesh format etdem reads (ASCII or binary STL, OBJ, Gmsh MSH, legacy VTK): it "
        "starts with '{}'",
        printable(head, 30)));
  }
  if (bytes.size() >= 84) {
    const std::uint32_t n = le32(bytes.data() + 80);
    refuse(fmt::format(
        "binary data that is no binary STL: its header declares {} triangles, which take 84 + 50 "
        "* {} = {} bytes, but the file has {} bytes",
        n, n, 84 + 50 * std::uint64_t{n}, bytes.size()));
  }
  refuse(fmt::format("{} bytes of binary data, no mesh format etdem reads", bytes.size()));
}

void check_mesh_extension(const std::string& path, MeshFormat format) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const char* want = format == MeshFormat::StlAscii || format == MeshFormat::StlBinary ? ".stl"
                     : format == MeshFormat::Obj                                       ? ".obj"
                     : format == MeshFormat::Msh                                       ? ".msh"
                                                                                       : ".vtk";
  if (ext == want) return;
  if (ext != ".stl" && ext != ".obj" && ext != ".msh" && ext != ".vtk")
    throw std::invalid_argument(fmt::format(
        "the content is {} but the file name {} (mesh files must be named .stl, .obj, .msh or "
        ".vtk after their content)",
        mesh_format_name(format),
        ext.empty() ? "has no extension" : "ends in '" + printable(ext, 20) + "'"));
  throw std::invalid_argument(fmt::format("the content is {} but the file name ends in '{}'",
                                          mesh_format_name(format), ext));
}

// --- TextCursor -----------------------------------------------------------------------------

void TextCursor::skip_space() {
  while (pos_ < text_.size() && is_space(text_[pos_])) {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
}

std::string_view TextCursor::token() {
  skip_space();
  const std::size_t b = pos_;
  while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
  return text_.substr(b, pos_ - b);
}

std::string_view TextCursor::peek() {
  skip_space();
  std::size_t e = pos_;
  while (e < text_.size() && !is_space(text_[e])) ++e;
  return text_.substr(pos_, e - pos_);
}

std::string_view TextCursor::rest_of_line() {
  const std::size_t b = pos_;
  while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  std::string_view out = text_.substr(b, pos_ - b);
  if (pos_ < text_.size()) {
    ++pos_;
    ++line_;
  }
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

bool TextCursor::at_end() {
  skip_space();
  return pos_ == text_.size();
}

bool TextCursor::skip_past_line_starting(std::string_view marker) {
  for (;;) {
    skip_space();
    if (pos_ == text_.size()) return false;
    if (text_.substr(pos_).starts_with(marker)) {
      pos_ += marker.size();
      return true;
    }
    rest_of_line();
  }
}

void TextCursor::fail(std::string_view message) const {
  throw std::invalid_argument(fmt::format("line {}: {}", line_, message));
}

void TextCursor::fail_found(std::string_view what, std::string_view token) const {
  if (token.empty()) fail(fmt::format("the file ends where {} is expected", what));
  fail(fmt::format("expected {}, found '{}'", what, printable(token, 30)));
}

void TextCursor::expect(std::string_view word, bool any_case) {
  const std::string_view t = token();
  if (any_case ? !iequals(t, word) : t != word) fail_found(fmt::format("'{}'", word), t);
}

double TextCursor::any_number(std::string_view what) {
  std::string_view t = token();
  std::string_view s = t;
  if (s.starts_with('+')) s.remove_prefix(1);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || end != s.data() + s.size() ||
      (ec != std::errc() && ec != std::errc::result_out_of_range))
    fail_found(what, t);
  if (ec == std::errc::result_out_of_range) v = std::abs(v) < 1.0 ? 0.0 : HUGE_VAL;
  return v;
}

double TextCursor::number(std::string_view what) {
  const double v = any_number(what);
  if (!std::isfinite(v)) fail(fmt::format("{} is not a finite number", what));
  return v;
}

long long TextCursor::integer(std::string_view what, long long lo, long long hi) {
  std::string_view t = token();
  std::string_view s = t;
  if (s.starts_with('+')) s.remove_prefix(1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || end != s.data() + s.size() || ec != std::errc()) {
    if (ec == std::errc::result_out_of_range)
      fail(fmt::format("{} '{}' is out of range", what, printable(t, 30)));
    fail_found(what, t);
  }
  if (v < lo || v > hi) fail(fmt::format("{} is {}, must be in [{}, {}]", what, v, lo, hi));
  return v;
}

void TextCursor::check_fits(unsigned long long count, std::size_t bytes_each,
                            std::string_view what) {
  if (count > remaining() / bytes_each)
    fail(fmt::format("{} declared, which take at least {} bytes each, but only {} bytes follow",
                     what, bytes_each, remaining()));
}

}  // namespace etdem
