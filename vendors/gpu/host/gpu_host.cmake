# The shared GPU host layer (vendors/gpu/host), built into each GPU vendor. Included by
# vendors/cuda/CMakeLists.txt (and vendors/rocm's).
#
# opkit_gpu_modules(<var>): the kernel module names, read from vendors/gpu/kernel_modules.h,
#   the one list of them (one OPK_MODULE(name) per line there).
# opkit_gpu_vendor(<target> SOURCES <files...> IMAGE_DIR <dir> IMAGE_EXT <.ext>
#                  IMAGES <files...> [BUILT_ELSEWHERE <files...>]): the vendor .so <target>
#   (libopkit_vendor_<name>.so in lib/opkit/vendors), from its runtime SOURCES and the
#   layer, embedding <dir>/<module><ext> for every module. IMAGES are the custom-command
#   outputs that build them: the layer's object library owns those commands, so a parallel
#   make runs each device compile once. BUILT_ELSEWHERE: images that another target's
#   commands build (the rocm test build embeds the cuda vendor's fatbins); not sources
#   here, but images.cpp is re-assembled when one changes. The layer is compiled without
#   the vendor's include directories:
#   it names no runtime type and includes no runtime header, and this proves it.

set(OPKIT_GPU_HOST_DIR ${CMAKE_CURRENT_LIST_DIR})

function(opkit_gpu_modules out)
  set(_header ${OPKIT_GPU_HOST_DIR}/../kernel_modules.h)
  file(STRINGS ${_header} _lines REGEX "^[ \t]*OPK_MODULE\\([A-Za-z0-9_]+\\)")
  # Each line ends in the macro's continuation backslash, which would escape the list's
  # separating semicolon.
  string(REPLACE "\\" "" _lines "${_lines}")
  set(_names)
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "^[ \t]*OPK_MODULE\\(([A-Za-z0-9_]+)\\).*" "\\1" _name "${_line}")
    list(APPEND _names ${_name})
  endforeach()
  if(NOT _names)
    message(FATAL_ERROR "no OPK_MODULE(name) lines in ${_header}")
  endif()
  # Re-run CMake when the list changes.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_header})
  set(${out} ${_names} PARENT_SCOPE)
endfunction()

function(opkit_gpu_vendor target)
  cmake_parse_arguments(_g "" "IMAGE_DIR;IMAGE_EXT" "SOURCES;IMAGES;BUILT_ELSEWHERE" ${ARGN})
  # ---- the shared layer, compiled for this vendor (its images embedded) ----
  file(GLOB _layer CONFIGURE_DEPENDS ${OPKIT_GPU_HOST_DIR}/*.cpp)
  set(_lib ${target}_gpu_host)
  add_library(${_lib} OBJECT ${_layer} ${_g_IMAGES})
  target_include_directories(${_lib} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/spec)
  target_compile_options(${_lib} PRIVATE -Wall -Wextra -fvisibility=hidden -fvisibility-inlines-hidden -O2)
  set_target_properties(${_lib} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_definitions(${_lib} PRIVATE
    OPKIT_GPU_IMAGE_DIR="${_g_IMAGE_DIR}" OPKIT_GPU_IMAGE_EXT="${_g_IMAGE_EXT}"
    OPKIT_GPU_VENDOR_VERSION="${PROJECT_VERSION}")
  # images.cpp is re-assembled when an image changes.
  set_source_files_properties(${OPKIT_GPU_HOST_DIR}/images.cpp PROPERTIES
    OBJECT_DEPENDS "${_g_IMAGES};${_g_BUILT_ELSEWHERE}")

  # ---- the vendor .so: its runtime (SOURCES) and the layer; only opkit_vendor_* exported,
  # no undefined symbols, no RPATH (it is dlopen'ed by path) ----
  add_library(${target} MODULE ${_g_SOURCES} $<TARGET_OBJECTS:${_lib}>)
  # The vendor's own sources include "gpu/host/...".
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/vendors)
  target_compile_options(${target} PRIVATE -Wall -Wextra -fvisibility=hidden -fvisibility-inlines-hidden -O2)
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
  target_link_options(${target} PRIVATE
    -Wl,--version-script=${OPKIT_GPU_HOST_DIR}/exports.map -Wl,--no-undefined)
  set_target_properties(${target} PROPERTIES
    PREFIX lib
    OUTPUT_NAME ${target}
    LIBRARY_OUTPUT_DIRECTORY ${OPKIT_VENDOR_OUTPUT_DIRECTORY}
    LINK_DEPENDS ${OPKIT_GPU_HOST_DIR}/exports.map
    SKIP_BUILD_RPATH ON
    INSTALL_RPATH "")
  # Component vendor-<name> (opkit_vendor_cuda -> vendor-cuda): its own Debian package.
  string(REGEX REPLACE "^opkit_vendor_" "vendor-" _component ${target})
  install(TARGETS ${target} LIBRARY DESTINATION ${OPKIT_INSTALL_VENDORDIR} COMPONENT ${_component})
endfunction()
