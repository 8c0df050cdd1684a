#include "etdem/io/terrain_import.hpp"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>

#include <cmath>
#include <filesystem>
#include <mutex>
#include <vector>

#include <fmt/format.h>

namespace etdem {
namespace {

/// Single-file raster formats: each reads the file it is named (ENVI and EHdr also their header
/// beside it) and nothing else.
constexpr const char* kDrivers[] = {"GTiff", "AAIGrid", "GRASSASCIIGrid", "XYZ",  "EHdr", "ENVI",
                                    "HFA",   "USGSDEM", "SRTMHGT",        "GSAG", "GSBG", "GS7BG",
                                    "BT",    "PNG",     nullptr};

std::once_flag gdal_once;

void register_gdal() {
  std::call_once(gdal_once, [] {
    // No side-car files read or written, no directory listed when a file is opened.
    CPLSetConfigOption("GDAL_PAM_ENABLED", "NO");
    CPLSetConfigOption("GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR");
    GDALAllRegister();
  });
}

/// GDAL's last error message, or `fallback`.
std::string gdal_message(const char* fallback) {
  const char* m = CPLGetLastErrorMsg();
  return m && *m ? std::string(m) : std::string(fallback);
}

/// Closes the dataset and restores GDAL's error handler on every exit.
struct OpenRaster {
  GDALDatasetH ds = nullptr;
  OpenRaster() { CPLPushErrorHandler(CPLQuietErrorHandler); }
  ~OpenRaster() {
    if (ds) GDALClose(ds);
    CPLPopErrorHandler();
  }
};

}  // namespace

std::string height_map_drivers() {
  std::string out;
  for (const char* const* d = kDrivers; *d; ++d) out += (out.empty() ? "" : ", ") + std::string(*d);
  return out;
}

HeightMap read_height_map(const HeightMapRequest& r) {
  const std::string& path = r.path;
  // Local regular files only: virtual file systems (/vsicurl/, /vsizip/, ...) and driver
  // prefixes ("NAME:...") are not files, so both fail here before GDAL sees them.
  if (path.starts_with("/vsi") || path.find("/vsi") != std::string::npos)
    throw HeightMapError("file", fmt::format("{}: GDAL virtual paths are refused", path));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw HeightMapError("file",
                         fmt::format("{}: no such file (a local raster file is needed)", path));
  register_gdal();
  OpenRaster open;
  CPLErrorReset();
  open.ds = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, kDrivers, nullptr, nullptr);
  if (!open.ds)
    throw HeightMapError(
        "file", fmt::format("{}: not a raster etdem reads (formats: {}): {}", path,
                            height_map_drivers(), gdal_message("no driver recognised it")));
  const long width = GDALGetRasterXSize(open.ds), height = GDALGetRasterYSize(open.ds);
  const int bands = GDALGetRasterCount(open.ds);
  if (r.raster_band < 1 || r.raster_band > bands)
    throw HeightMapError("raster_band", fmt::format("{} has {} band(s); band {} does not exist",
                                                    path, bands, r.raster_band));
  double gt[6];
  if (GDALGetGeoTransform(open.ds, gt) != CE_None)
    throw HeightMapError("file", fmt::format("{}: the raster has no georeferencing (pixel size "
                                             "and position); etdem needs it",
                                             path));
  if (gt[2] != 0.0 || gt[4] != 0.0)
    throw HeightMapError("file", fmt::format("{}: rotated rasters are not supported", path));
  if (!(std::isfinite(gt[1]) && std::isfinite(gt[5]) && gt[1] != 0.0 && gt[5] != 0.0 &&
        std::isfinite(gt[0]) && std::isfinite(gt[3])))
    throw HeightMapError("file",
                         fmt::format("{}: the raster's pixel size is zero or not finite", path));
  long c0 = 0, r0 = 0, w = width, h = height;
  const std::string window_key = r.crop ? "crop" : "file";
  if (r.crop) {
    const auto& c = *r.crop;
    c0 = c[0], r0 = c[1], w = c[2], h = c[3];
    if (c0 < 0 || r0 < 0 || w < 2 || h < 2 || c0 + w > width || r0 + h > height)
      throw HeightMapError(
          "crop", fmt::format("[{}, {}, {}, {}] is not a window of at least 2 x 2 pixels inside "
                              "the {} x {} raster {}",
                              c0, r0, w, h, width, height, path));
  }
  if (w < 2 || h < 2)
    throw HeightMapError(
        "file", fmt::format("{}: {} x {} pixels; a terrain needs at least 2 x 2", path, w, h));
  if (double(w) * double(h) > r.max_pixels)
    throw HeightMapError(window_key,
                         fmt::format("{}: a window of {} x {} pixels is more than the {:.3g} "
                                     "etdem reads (crop it)",
                                     path, w, h, r.max_pixels));
  GDALRasterBandH band = GDALGetRasterBand(open.ds, r.raster_band);
  std::vector<double> values(static_cast<std::size_t>(w) * h);
  CPLErrorReset();
  if (GDALRasterIO(band, GF_Read, static_cast<int>(c0), static_cast<int>(r0), static_cast<int>(w),
                   static_cast<int>(h), values.data(), static_cast<int>(w), static_cast<int>(h),
                   GDT_Float64, 0, 0) != CE_None)
    throw HeightMapError(window_key, fmt::format("{}: reading the pixels failed: {}", path,
                                                 gdal_message("unknown error")));
  int has_nodata = 0;
  const double nodata = GDALGetRasterNoDataValue(band, &has_nodata);

  HeightMap m;
  m.nx = static_cast<int>(w);
  m.ny = static_cast<int>(h);
  m.dx = std::abs(gt[1]);
  m.dy = std::abs(gt[5]);
  // Pixel centres; x and y grow with i and j whatever the raster's own orientation.
  const bool flip_x = gt[1] < 0.0, flip_y = gt[5] < 0.0;
  const double xa = gt[0] + (c0 + 0.5) * gt[1], xb = gt[0] + (c0 + w - 0.5) * gt[1];
  const double ya = gt[3] + (r0 + 0.5) * gt[5], yb = gt[3] + (r0 + h - 0.5) * gt[5];
  m.x0 = std::min(xa, xb) + r.offset.x();
  m.y0 = std::min(ya, yb) + r.offset.y();
  m.z.resize(values.size());
  for (long row = 0; row < h; ++row)
    for (long col = 0; col < w; ++col) {
      const double v = values[static_cast<std::size_t>(row) * w + col];
      if ((has_nodata && (v == nodata || (std::isnan(nodata) && std::isnan(v)))) ||
          !std::isfinite(v))
        throw HeightMapError(
            window_key,
            fmt::format("{}: {} at pixel (column {}, row {}) inside the used window; fill the "
                        "hole or crop it out",
                        path, std::isfinite(v) ? "NoData" : "a non-finite value", c0 + col,
                        r0 + row));
      const long i = flip_x ? w - 1 - col : col, j = flip_y ? h - 1 - row : row;
      m.z[static_cast<std::size_t>(j) * w + i] = r.scale * v + r.offset.z();
    }
  return m;
}

void write_geotiff(const std::string& path, const HeightMap& map, std::optional<double> nodata) {
  register_gdal();
  OpenRaster out;
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  if (driver) out.ds = GDALCreate(driver, path.c_str(), map.nx, map.ny, 1, GDT_Float32, nullptr);
  if (!out.ds)
    throw std::runtime_error(
        fmt::format("{}: cannot create a GeoTIFF: {}", path, gdal_message("no GTiff driver")));
  // North up: row 0 is the largest y; the pixel of node (i, j) is centred on it.
  double gt[6] = {map.x0 - 0.5 * map.dx, map.dx, 0.0, map.y_max() + 0.5 * map.dy, 0.0, -map.dy};
  GDALSetGeoTransform(out.ds, gt);
  GDALRasterBandH band = GDALGetRasterBand(out.ds, 1);
  if (nodata) GDALSetRasterNoDataValue(band, *nodata);
  std::vector<float> row(static_cast<std::size_t>(map.nx));
  for (int r = 0; r < map.ny; ++r) {
    const int j = map.ny - 1 - r;
    for (int i = 0; i < map.nx; ++i) row[i] = static_cast<float>(map.at(i, j));
    if (GDALRasterIO(band, GF_Write, 0, r, map.nx, 1, row.data(), map.nx, 1, GDT_Float32, 0, 0) !=
        CE_None)
      throw std::runtime_error(
          fmt::format("{}: writing row {} failed: {}", path, r, gdal_message("unknown error")));
  }
}

}  // namespace etdem
