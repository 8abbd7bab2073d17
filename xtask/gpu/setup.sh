#!/usr/bin/env bash
# Sourced by the scripts beside it on the lent H200: unpack the carried Vulkan loader (and
# validation layer) .debs, point the loader at the NVIDIA driver and the binaries at glsl/.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export SUBGROUP_GLSL_DIR="$PWD/.gpu/glsl"
B=.gpu/bin
