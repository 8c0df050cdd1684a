// The solver registry's list: every collision solver's record (declared beside the solver,
// solvers/solver_record.hpp), in the order of docs/solvers.md. A new solver is its files in
// solvers/ and one entry here (and its include); WorldSettings holds one settings struct per
// record of the list (SolverSettings), and the registry (world/solver_registry.hpp), the loader,
// the settings schema and docs/scenario.md read the records. An explicit list, no
// self-registration.
#pragma once

#include <tuple>
#include <type_traits>

#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/etm_priority.hpp"
#include "etdem/solvers/jolt.hpp"
#include "etdem/solvers/lzb.hpp"
#include "etdem/solvers/smm.hpp"
#include "etdem/solvers/sqm.hpp"

namespace etdem {

inline constexpr std::tuple kSolverRecords{
    &kEtmRecord, &kEtmPriorityRecord, &kSqmRecord, &kSmmRecord, &kLzbRecord, &kJoltRecord,
};

template <class List>
struct SolverSettingsOf;
template <class... S>
struct SolverSettingsOf<std::tuple<const SolverRecord<S>*...>> {
  using type = std::tuple<S...>;
};

/// One settings struct per solver of the list, in its order (WorldSettings::solvers).
using SolverSettings = SolverSettingsOf<std::remove_const_t<decltype(kSolverRecords)>>::type;

}  // namespace etdem
