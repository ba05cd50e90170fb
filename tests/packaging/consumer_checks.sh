# Shared by check_install_tree.sh (a `cmake --install` prefix, no root) and
# scripts/ci-packages.sh (the Debian packages, installed with dpkg): build the outside
# program of consumer/ against an installed opkit both ways and run it. Sourced; needs
# $work (a scratch directory) and `say`/`die` from the caller.

# build_and_run_consumers CMAKE_PREFIX PKG_CONFIG_DIR: prints each build's output path.
build_and_run_consumers() {
  local cmake_prefix=$1 pc_dir=$2 here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  # 1. find_package(opkit): the imported target carries the include directory and library.
  rm -rf "$work/cmake-consumer"
  cmake -S "$here/consumer" -B "$work/cmake-consumer" ${cmake_prefix:+-DCMAKE_PREFIX_PATH="$cmake_prefix"} \
        -DCMAKE_BUILD_TYPE=Release >"$work/cmake-consumer.log" 2>&1 ||
    { cat "$work/cmake-consumer.log"; die "find_package(opkit) failed"; }
  grep -q "^-- opkit 1\.[0-9]*\.[0-9]* from " "$work/cmake-consumer.log" ||
    die "find_package(opkit) did not report the version it found"
  cmake --build "$work/cmake-consumer" >/dev/null || die "the find_package consumer did not build"
  "$work/cmake-consumer/consumer" >"$work/cmake-consumer.out" ||
    { cat "$work/cmake-consumer.out"; die "the find_package consumer failed"; }
  say "find_package(opkit) consumer: $(tail -1 "$work/cmake-consumer.out")"

  # SameMajorVersion: asking for opkit 2 must be refused.
  if cmake -S "$here/consumer" -B "$work/cmake-consumer-v2" -DOPKIT_WANT=2 \
       ${cmake_prefix:+-DCMAKE_PREFIX_PATH="$cmake_prefix"} >"$work/cmake-v2.log" 2>&1; then
    die "find_package(opkit 2) accepted a 1.x install"
  fi
  # ("...considered but not accepted: .../opkitConfig.cmake, version: 1.x.y")
  grep -q "opkitConfig.cmake, version: 1\." "$work/cmake-v2.log" ||
    { cat "$work/cmake-v2.log"; die "find_package(opkit 2) failed for another reason"; }
  say "find_package(opkit 2) refused, as SameMajorVersion says"

  # 2. pkg-config: flags from opkit.pc, the C compiler called directly.
  local flags libdir
  flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs opkit) || die "pkg-config does not know opkit"
  libdir=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --variable=libdir opkit)
  # shellcheck disable=SC2086  # the flags are words
  cc -O2 -o "$work/pc-consumer" "$here/consumer/consumer.c" $flags -lm -Wl,-rpath,"$libdir" ||
    die "the pkg-config consumer did not build (flags: $flags)"
  "$work/pc-consumer" >"$work/pc-consumer.out" || { cat "$work/pc-consumer.out"; die "the pkg-config consumer failed"; }
  say "pkg-config consumer ($flags): $(tail -1 "$work/pc-consumer.out")"
}
