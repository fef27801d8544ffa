// The bridge to libflame itself, for the few translation units that call it (the
// flame/ layer, and tests that compare against libflame's own variants).
//
// Include this header first and never together with blis.h: FLAME.h defines
// lower-case macros (min, max, exchange, ...) and, in C++, pulls <complex.h>, so every standard header it would
// otherwise break is included before it, and the macros are removed after it.
#pragma once

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <FLAME.h>
// FLAME.h's lower-case macros would rewrite any later standard or project code.
#undef bit_clear
#undef bit_set
#undef bit_test
#undef dmax
#undef dmin
#undef exchange
#undef f2c_abs
#undef f2c_dabs
#undef max
#undef min
#undef qbit_clear
#undef qbit_set
#undef restrict
#undef signof

#include "flame/flame.hpp"

namespace flamex::fla {

// Initializes libflame once per process, keeping the caller's floating-point
// environment: FLA_Init() sets flush-to-zero and denormals-are-zero in MXCSR, and
// exact arithmetic needs subnormals.
void ensure_initialized();

// The FLA_Obj view of a flamex view of an owned Matrix or Pivots.
FLA_Obj to_fla(Obj A);
FLA_Obj to_fla(PivObj p);

} // namespace flamex::fla
