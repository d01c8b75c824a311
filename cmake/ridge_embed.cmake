# ridge_embed(OUT PREFIX LABEL FILE...): a rule that writes OUT, a C file holding FILE... as
# strings named PREFIX_* (cmake/embed.cmake does the writing; model/base/embedded.h reads them).
# Used for the GPU catalogue, the workload presets, the clusters and the validation baseline.
# SPDX-License-Identifier: GPL-3.0-or-later
function(ridge_embed out prefix label)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DPREFIX=${prefix} "-DFILES=${ARGN}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
    DEPENDS ${ARGN} ${PROJECT_SOURCE_DIR}/cmake/embed.cmake
    COMMENT "Embedding ${label}"
    VERBATIM)
endfunction()
