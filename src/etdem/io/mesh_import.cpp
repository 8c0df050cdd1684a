#include "etdem/io/mesh_import.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fmt/format.h>
#include <assimp/Importer.hpp>

namespace etdem {

MeshData import_mesh(const std::string& path, const MeshImportOptions& options) {
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}: {}", path, why));
  };
  if (!(std::isfinite(options.scale) && options.scale > 0.0)) fail("scale must be finite and > 0");
  if (!options.offset.allFinite()) fail("offset must be finite");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail("no such file");
  Assimp::Importer importer;
  const aiScene* scene =
      importer.ReadFile(path, aiProcess_Triangulate | aiProcess_DropNormals |
                                  aiProcess_JoinIdenticalVertices | aiProcess_SortByPType);
  if (!scene) fail(fmt::format("not a readable mesh ({})", importer.GetErrorString()));
  MeshData out;
  // Vertices at exactly the same position are one vertex (STL repeats them per facet, and a
  // file may split a surface into several meshes), so shared edges are found.
  std::map<std::array<double, 3>, int> welded;
  std::vector<int> id;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    id.assign(mesh->mNumVertices, -1);
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D& p = mesh->mVertices[v];
      const Vec3 x(p.x, p.y, p.z);
      if (!x.allFinite())
        fail(fmt::format("vertex {} of mesh {} has a non-finite coordinate", v, m));
      const auto [it, fresh] =
          welded.insert({{x.x(), x.y(), x.z()}, static_cast<int>(out.vertices.size())});
      if (fresh) out.vertices.push_back(options.scale * x + options.offset);
      id[v] = it->second;
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines
      out.triangles.push_back({id[face.mIndices[0]], id[face.mIndices[1]], id[face.mIndices[2]]});
    }
  }
  if (out.triangles.empty()) fail("the file holds no triangle");
  return out;
}

}  // namespace etdem
