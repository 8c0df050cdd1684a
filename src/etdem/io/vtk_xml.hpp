// VTK XML files as plain data and their encoding: an UnstructuredGrid piece (.vtu) written as
// ASCII or as appended raw binary, optionally zlib-compressed, and the two small index files
// that tie pieces together, the multiblock (.vtm) of one frame and the time collection (.pvd).
//
// Binary layout (VTK XML file format, "appended" data): every DataArray carries
// format="appended" and the byte offset of its block in the <AppendedData encoding="raw">
// section, which starts after an underscore. Without compression a block is a UInt64 byte count
// followed by the values (little endian). With compression (compressor="vtkZLibDataCompressor")
// a block is the UInt64 header [number of blocks, block size, size of a partial last block
// (0 when the last block is full), compressed size of each block] followed by the blocks, each
// compressed on its own by zlib. ParaView (vtkXMLUnstructuredGridReader) and meshio read both.
// The appended section ends with a newline before </AppendedData>: meshio's reader cuts the
// data at the last newline.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace etdem {

/// How a .vtu piece is encoded ([output] vtk_format, vtk_compression).
struct VtkEncoding {
  bool binary = true;  // appended raw binary; false: ASCII (10 significant digits)
  bool zlib = false;   // binary blocks compressed by zlib (binary only)
};

/// One named array of point or cell data: `components` values per point or cell.
struct VtuArray {
  std::string name;
  int components = 1;
  std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::uint8_t>> values;
};

/// The arrays of one point-data or cell-data section; `scalars` and `vectors` name the arrays
/// VTK marks as the active ones ("" for none).
struct VtuData {
  std::vector<VtuArray> arrays;
  std::string scalars, vectors;

  void add(std::string name, int components, std::vector<double> values) {
    arrays.push_back({std::move(name), components, std::move(values)});
  }
  void add(std::string name, std::vector<std::int64_t> values) {
    arrays.push_back({std::move(name), 1, std::move(values)});
  }
};

/// One UnstructuredGrid piece: points, cells and their data.
struct VtuPiece {
  std::vector<double> points;              // x, y, z of every point
  std::vector<std::int64_t> connectivity;  // the point indices of every cell, cell after cell
  std::vector<std::int64_t> offsets;       // end of each cell in connectivity
  std::vector<std::uint8_t> types;         // VTK cell type of each cell
  VtuData point_data, cell_data;

  std::size_t point_count() const { return points.size() / 3; }
  std::size_t cell_count() const { return types.size(); }
  /// Appends `count` cells of `per_cell` consecutive points each, starting at point `first`.
  void add_cells(std::size_t count, int per_cell, std::uint8_t type, std::int64_t first = 0);
};

/// VTK cell types used by the frames.
inline constexpr std::uint8_t kVtkVertex = 1, kVtkLine = 3, kVtkTriangle = 5, kVtkPolygon = 7,
                              kVtkQuad = 9, kVtkHexahedron = 12;

/// The .vtu file of `piece` encoded as `encoding` says. Throws std::invalid_argument when the
/// piece is inconsistent (array sizes that do not match the point or cell count).
std::string encode_vtu(const VtuPiece& piece, const VtkEncoding& encoding);
/// Writes the .vtu file of `piece` to `path` (binary arrays straight from the piece); throws
/// InputError naming the path when it cannot.
void write_vtu(const std::string& path, const VtuPiece& piece, const VtkEncoding& encoding);

/// One block of a multiblock file: its name and the file holding it, relative to the .vtm's
/// directory ("" for an empty block, which readers give as a null block under the same name).
struct VtmBlock {
  std::string name;
  std::string file;
};
/// A vtkMultiBlockDataSet file (.vtm) listing the blocks in order.
std::string encode_vtm(const std::vector<VtmBlock>& blocks);

/// One dataset of a time collection: its time and file (relative to the .pvd's directory).
struct PvdEntry {
  double time;
  std::string file;
};
/// A Collection file (.pvd) listing one file per time.
std::string encode_pvd(const std::vector<PvdEntry>& entries);

/// Writes `bytes` to `path`; throws InputError naming the path when it cannot.
void write_bytes(const std::string& path, std::string_view bytes);

}  // namespace etdem
