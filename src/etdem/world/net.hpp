// Flexible nets (2024 paper §4.2): rigid balls linked by permanent springs and dampers. The
// nodes are ordinary sphere bodies (they collide through the solvers like any grain; clamped
// nodes are fixed bodies); a net adds only its links, plain data kept here, and the forces they
// carry, applied as a velocity kick before the collisions of each step (World::step, phase 1),
// so positions advance with the collision-corrected velocities before the next kick corrects
// them (the paper's order). Everything a checkpoint needs of a net is in `Net` (node ids, links
// with rest length, stiffness, damping coefficient and broken flag).
#pragma once

#include <string>
#include <vector>

#include "etdem/core/bodies.hpp"
#include "etdem/core/exact_sum.hpp"
#include "etdem/core/math.hpp"

namespace etdem {

enum class NetPattern { Square, Hexagonal };

/// One link: a spring (tension and compression) with a dashpot along the line of its nodes.
struct NetLink {
  int a = -1, b = -1;       // body ids of its nodes
  double rest = 0.0;        // [m] rest length (spacing / (1 + prestrain))
  double stiffness = 0.0;   // [N/m]
  double damping = 0.0;     // [N s/m] dashpot coefficient c = 2 zeta sqrt(k mu)
  bool broken = false;      // broke beyond break_strain; carries nothing from then on
  double tension = 0.0;     // [N] spring + dashpot force of the last step (> 0 pulls)
  double strain = 0.0;      // (length - rest) / rest at the last step
  Vec3 direction{0, 0, 0};  // unit vector from a to b at the last kick (zero when they coincide)
};

struct Net {
  std::string name;
  int nu = 0, nv = 0;          // nodes along u and v
  std::vector<int> nodes;      // body ids, u fastest: node (i, j) is nodes[j * nu + i]
  std::vector<char> clamped;   // per node: held fixed
  std::vector<NetLink> links;  // the pattern's links, in a fixed order
  double break_strain = 0.0;   // a link breaks beyond this strain (0 = never)
  std::vector<Vec3> start;     // per node: its position when built [m]
  Vec3 normal{0, 0, 1};        // axis_u x axis_v: the downstream side of the net
  // What the last step measured.
  Vec3 clamp_force{0, 0, 0};  // [N] force of the links on the clamped nodes (what anchors hold)
  double max_strain = 0.0;    // largest strain of an unbroken link
  long broken_links = 0;      // links broken so far
};

/// The layout of a net before its nodes are bodies: node positions (u fastest) and links as
/// node-index pairs. Square: links along u and v. Hexagonal: a triangular lattice (every inner
/// node has six neighbours at `spacing`; rows along v are sqrt(3)/2 spacing apart and every
/// other row is shifted by spacing/2 along u), the pattern of close-packed balls.
struct NetLayout {
  std::vector<Vec3> positions;             // [m]
  std::vector<std::pair<int, int>> links;  // node indices
  std::vector<char> on_edge[4];            // per node: on edge u0, u1, v0, v1
};
NetLayout net_layout(NetPattern pattern, const Vec3& origin, const Vec3& u, const Vec3& v, int nu,
                     int nv, double spacing);

/// Links per inner node: 4 (square) or 6 (hexagonal).
int net_coordination(NetPattern pattern);

/// Largest sphere radius that passes through a cell of the unstretched net whose nodes have
/// radius r: the cell's circumradius minus r (square s / sqrt 2, triangle s / sqrt 3).
double net_opening_radius(NetPattern pattern, double spacing, double node_radius);

/// Shortest period [s] of the net's vibration: a node of mass m held by z links of stiffness k
/// vibrates at most at omega = 2 sqrt(z k / (2 m)) (the highest mode of a chain, z = 2, is
/// 2 sqrt(k / m)); the period is 2 pi / omega.
double net_shortest_period(NetPattern pattern, double stiffness, double node_mass);

/// Energy the step's kick booked (NetKick) and the elastic energy of the links.
struct NetKick {
  double spring = 0.0;    // [J] kinetic energy the spring kick added
  double damped = 0.0;    // [J] kinetic energy the dashpots removed (>= 0)
  double released = 0.0;  // [J] elastic energy of links that broke this step
};

/// One group of nodes (an island's, or those in no island) for the ledger of a kick the contacts
/// took back (World::book_net_contacts, world/net_ledger.cpp), summed exactly over its nodes.
struct NetShare {
  ExactSum spring;     // [J] the springs' kinetic energy minus their work: dK_s - W_s
  ExactSum removed;    // [J] what the dashpots removed, as booked: -dK_d
  ExactSum dashpot_w;  // [J] the dashpots' work on the real velocities: W_d
};

/// What World::book_nets books for one (sub-)step: the islands' shares and the free nodes'.
struct NetBooking {
  ExactSum islands_integration, islands_damping;  // [J]
  NetShare free;
};

/// Elastic energy stored in the unbroken links [J]: sum k (l - rest)^2 / 2.
double net_elastic_energy(const Net& net, const Bodies& bodies);

/// One step's link forces on the node velocities: links beyond break_strain break, then every
/// spring gives its nodes the impulse dt k (l - rest) along the link (equal and opposite, from
/// the positions at the start of the step), then every dashpot takes away the fraction
/// 1 - exp(-c dt / mu) of its nodes' relative velocity along the link (the exact solution of a
/// dashpot over dt, with mu the reduced mass: it only removes energy, for any dt), in two
/// half-decays, forward and backward over the links. Fixed
/// (clamped) nodes do not move. Records tension, strain and the clamp force. When
/// `after_springs` is given (indexed by body id), the nodes' velocities between the springs and
/// the dashpots are written there (the ledger splits the kick by them, World::book_net_contacts).
NetKick apply_net_forces(Net& net, Bodies& bodies, double dt,
                         std::vector<Vec3>* after_springs = nullptr);

}  // namespace etdem
