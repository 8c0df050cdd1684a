// Inputs of the MPI scaling model (bench/mpi_model.py), measured on a serial pour: for snapshots
// of bench_pour's sphere pour and rank counts P, decompose the grains (distributed/decomposition,
// weighted by 1 + contacts), and count what a distributed step would move: ghosts per rank and
// their neighbours, islands spanning ranks and their sizes, the bytes of the host gathers and of
// the velocity returns, and the rounds and bytes of the island labelling itself
// (distributed/island_labels, run on P thread-ranks).
//
//   bench_partition N DURATION_S SAMPLES [P...]     (default P: 2 8 64 512)
//
// Prints one CSV row per snapshot and P (header first) on stdout, and on stderr the serial step's
// CPU cost per grain-step and phase ("profile,PHASE,MICROSECONDS"), one thread. Payload sizes per
// item are stated in the header comment of bench/mpi_model.py and below.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "etdem/distributed/decomposition.hpp"
#include "etdem/distributed/island_labels.hpp"
#include "etdem/distributed/local_transport.hpp"
#include "pour_lattice.hpp"

namespace {

using namespace etdem;
using namespace etdem::distributed;

// Bytes per item on the wire (what the distributed step will send).
constexpr long kGhostBytes = 8 + 13 * 8;  // id, position, orientation, velocity, spin
constexpr long kContactBytes =
    2 * 8 + 21 * 8;  // ids, point, normal, gap, ra, rb, e, mu, K, impulses
constexpr long kIslandBodyBytes = 8 + 6 * 8 + 1 * 8 + 9 * 8;  // id, v, w, 1/m, world 1/I
constexpr long kVelocityBytes = 8 + 6 * 8;                    // id, v, w

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + 1e-6 * u.ru_utime.tv_usec + u.ru_stime.tv_sec +
         1e-6 * u.ru_stime.tv_usec;
}

int find(std::vector<int>& p, int x) {
  while (p[x] != x) x = p[x] = p[p[x]];
  return x;
}

void sample(const World& world, const std::vector<int>& grains, double t, int ranks) {
  const int n = static_cast<int>(grains.size());
  std::vector<int> grain_of(world.bodies.count(), -1);
  for (int g = 0; g < n; ++g) grain_of[grains[g]] = g;
  // Grain-grain candidate contacts (edges; a pair once) and contacts per grain (the weights).
  std::set<std::pair<int, int>> pairs;
  std::vector<double> weight(n, 1.0);
  std::vector<char> touched(n, 0), on_wall(n, 0);
  for (int ci : world.candidates()) {  // the contacts that join islands
    const Contact& c = world.contacts()[static_cast<std::size_t>(ci)];
    const int a = c.a >= 0 ? grain_of[c.a] : -1, b = c.b >= 0 ? grain_of[c.b] : -1;
    if (a >= 0) weight[a] += 1, touched[a] = 1;
    if (b >= 0) weight[b] += 1, touched[b] = 1;
    if (a >= 0 && b >= 0) pairs.emplace(std::min(a, b), std::max(a, b));
    if ((a >= 0) != (b >= 0)) on_wall[a >= 0 ? a : b] = 1;
  }
  std::vector<Vec3> x(n);
  double vmax = 0;
  for (int g = 0; g < n; ++g) {
    x[g] = world.bodies.position[grains[g]];
    vmax = std::max(vmax, world.bodies.velocity[grains[g]].norm());
  }
  const double halo = 2 * kDiameter + 2 * vmax * world.settings.dt;
  const Decomposition d = Decomposition::bisect(x, weight, ranks);
  std::vector<int> owner(n);
  std::vector<std::vector<int>> holders(n);  // ghost ranks
  for (int g = 0; g < n; ++g) {
    owner[g] = d.owner_of(x[g]);
    d.ghost_ranks(x[g], halo, owner[g], holders[g]);
  }
  // Ghosts and neighbours per rank.
  std::vector<long> owned(ranks, 0), ghosts(ranks, 0), load(ranks, 0);
  std::vector<std::set<int>> neighbours(ranks);
  for (int g = 0; g < n; ++g) {
    ++owned[owner[g]];
    load[owner[g]] += static_cast<long>(weight[g]);
    for (int r : holders[g]) {
      ++ghosts[r];
      neighbours[owner[g]].insert(r);
    }
  }
  // Islands (serial union-find) and what spans ranks.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (auto [a, b] : pairs) parent[find(parent, std::max(a, b))] = find(parent, std::min(a, b));
  std::map<int, std::set<int>> island_ranks;
  std::map<int, long> island_contacts, island_bodies;
  for (int g = 0; g < n; ++g)
    if (touched[g]) {
      island_ranks[find(parent, g)].insert(owner[g]);
      ++island_bodies[find(parent, g)];
    }
  for (auto [a, b] : pairs) ++island_contacts[find(parent, a)];
  long islands = static_cast<long>(island_ranks.size()), spanning = 0, spanning_contacts = 0,
       all_contacts = static_cast<long>(pairs.size()), largest = 0, largest_span = 0;
  for (auto& [root, rs] : island_ranks) {
    if (island_contacts[root] > largest)
      largest = island_contacts[root], largest_span = static_cast<long>(rs.size());
    if (rs.size() > 1) ++spanning, spanning_contacts += island_contacts[root];
  }
  // Host gather (host = owner of the island's smallest grain): contacts detected elsewhere
  // (a pair is detected by the owner of its smaller grain) and bodies owned elsewhere; the
  // return: velocities to the owner and every ghost holder, except the host itself.
  std::vector<long> gather_bytes(ranks, 0), return_bytes(ranks, 0);
  std::vector<int> host(n, -1);
  for (int g = 0; g < n; ++g)
    if (touched[g]) host[g] = owner[find(parent, g)];
  for (auto [a, b] : pairs) {
    const int detector = owner[std::min(a, b)];
    if (detector != host[a]) gather_bytes[detector] += kContactBytes;
  }
  for (int g = 0; g < n; ++g) {
    if (!touched[g] || island_ranks[find(parent, g)].size() == 1) continue;
    if (owner[g] != host[g]) gather_bytes[owner[g]] += kIslandBodyBytes;
    long sends = owner[g] != host[g];
    for (int r : holders[g]) sends += r != host[g];
    return_bytes[host[g]] += sends * kVelocityBytes;
  }
  // The labelling on P thread-ranks: each rank's view as the distributed step would hold it.
  std::vector<LocalContactGraph> views(ranks);
  std::vector<std::map<int, int>> index(ranks);
  auto add = [&](int r, int g) {
    auto [it, inserted] = index[r].emplace(g, static_cast<int>(views[r].gid.size()));
    if (inserted) {
      views[r].gid.push_back(g);
      views[r].owner.push_back(owner[g]);
      views[r].touched.push_back(0);
    }
    return it->second;
  };
  for (int g = 0; g < n; ++g)  // touched on its owner if it touches a wall (pairs: below)
    views[owner[g]].touched[add(owner[g], g)] = on_wall[g];
  for (auto [a, b] : pairs) {
    const int r = owner[a];  // a < b: the owner of the smaller grain detects the pair
    const int la = add(r, a), lb = add(r, b);
    views[r].touched[la] = views[r].touched[lb] = 1;
    views[r].edges.emplace_back(la, lb);
  }
  std::vector<IslandLabelStats> st(ranks);
  std::vector<TransportCounters> counters(ranks);
  run_local_ranks(ranks, [&](Transport& tr) {
    label_islands(views[tr.rank()], tr, &st[tr.rank()]);
    counters[tr.rank()] = tr.counters();
  });
  auto mean = [&](const std::vector<long>& v) {
    return static_cast<double>(std::accumulate(v.begin(), v.end(), 0L)) / ranks;
  };
  auto maxof = [&](const std::vector<long>& v) { return *std::max_element(v.begin(), v.end()); };
  std::vector<long> nb(ranks), label_bytes(ranks), label_msgs(ranks);
  for (int r = 0; r < ranks; ++r) {
    nb[r] = static_cast<long>(neighbours[r].size());
    label_bytes[r] = counters[r].bytes;
    label_msgs[r] = counters[r].messages;
  }
  std::printf(
      "%.4f,%d,%d,%ld,%ld,%.1f,%ld,%.1f,%ld,%.2f,%ld,%ld,%ld,%ld,%ld,%ld,%.0f,%ld,%.0f,%ld,%d,%.0f,"
      "%ld\n",
      t, n, ranks, all_contacts, maxof(owned), mean(load), maxof(load), mean(ghosts), maxof(ghosts),
      mean(nb), maxof(nb), islands, spanning, spanning_contacts, largest, largest_span,
      mean(gather_bytes), maxof(gather_bytes), mean(return_bytes), maxof(return_bytes),
      st[0].rounds, mean(label_bytes), maxof(label_msgs));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s N DURATION_S SAMPLES [P...]\n", argv[0]);
    return 2;
  }
  const long n = std::strtol(argv[1], nullptr, 10);
  const double duration = std::strtod(argv[2], nullptr);
  const int samples = static_cast<int>(std::strtol(argv[3], nullptr, 10));
  std::vector<int> ranks;
  for (int i = 4; i < argc; ++i)
    ranks.push_back(static_cast<int>(std::strtol(argv[i], nullptr, 10)));
  if (ranks.empty()) ranks = {2, 8, 64, 512};
  if (n <= 0 || !(duration > 0) || samples < 1 ||
      std::any_of(ranks.begin(), ranks.end(), [](int p) { return p < 1 || p > 4096; })) {
    std::fprintf(stderr, "bench_partition: N > 0, DURATION_S > 0, SAMPLES >= 1, 1 <= P <= 4096\n");
    return 2;
  }
  etdem::World world;
  world.settings.dt = 1.0 / 600.0;
  world.settings.threads = 1;  // the per-phase costs of one core
  const std::vector<int> grains = build_pour(world, n);
  world.initialize();
  const long steps = std::max(1L, std::lround(duration / world.settings.dt));
  std::printf(
      "time_s,grains,ranks,contacts,owned_max,load_mean,load_max,ghosts_mean,ghosts_max,"
      "neighbours_mean,neighbours_max,islands,spanning_islands,spanning_contacts,"
      "largest_island_contacts,largest_island_ranks,gather_bytes_mean,gather_bytes_max,"
      "return_bytes_mean,return_bytes_max,label_rounds,label_bytes_mean,label_messages_max\n");
  // The serial step's cost per phase, for the model: the profile's shares of the step times the
  // process's CPU time per grain-step (CPU time, not wall: the machine may be shared).
  double cpu_in_steps = 0;
  for (long s = 1; s <= steps; ++s) {
    const double c0 = cpu_seconds();
    world.step();
    cpu_in_steps += cpu_seconds() - c0;
    if (s % std::max(1L, steps / samples) == 0)
      for (int p : ranks) sample(world, grains, world.time(), p);
  }
  const etdem::StepProfile& prof = world.profile();
  const double grain_steps = static_cast<double>(n) * static_cast<double>(steps);
  for (int k = 0; k < etdem::StepProfile::kPhases; ++k)
    std::fprintf(stderr, "profile,%s,%.4g\n", etdem::StepProfile::kNames[k],
                 1e6 * cpu_in_steps * prof.seconds[k] / prof.total() / grain_steps);
  std::fprintf(stderr, "profile,step_total_us_per_grain_step,%.4g\n",
               1e6 * cpu_in_steps / grain_steps);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_partition: %s\n", e.what());
  return 1;
}
