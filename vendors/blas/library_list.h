// A ':'-separated list of sonames or paths from an environment variable, the form both
// $OPKIT_BLAS_LIBRARY and $OPKIT_ONEDNN_LIBRARY take. Read with secure_getenv, so that a
// setuid program cannot be made to load a library of the caller's choosing.
#pragma once

#include <string>
#include <vector>

namespace opkit_blas {

// false when the variable is unset (the built-in order applies); true with the non-empty
// entries otherwise, none when it is set and empty (the caller then loads nothing).
bool library_list_from_env(const char* variable, std::vector<std::string>* out);

}  // namespace opkit_blas
