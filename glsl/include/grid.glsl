// grid.glsl — the flat index of this workgroup in a dispatch laid out as a 2D grid by the
// host (Context::grid): Vulkan guarantees only 65535 workgroups per dimension, so a large
// dispatch spreads over y too. The grid may hold up to y - 1 workgroups past the work: a
// shader returns at once from those (before any barrier, so the whole workgroup returns together).
#ifndef GRID_GLSL
#define GRID_GLSL
uint flat_workgroup_id() {
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}
#endif
