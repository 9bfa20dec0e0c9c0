# Include roots by construction (cmake/layers.txt).
#
# Each component compiles against a tree of its own, <build>/inc/<component>,
# holding symlinks to exactly what its row allows: its own directory, the
# directories of the components it uses, single headers, include/mlx5emu.
# The source root itself is never an include path of a component, so an
# include its row does not allow fails to compile.

set(MLX5EMU_LAYERS_FILE ${CMAKE_SOURCE_DIR}/cmake/layers.txt)
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY
  CMAKE_CONFIGURE_DEPENDS ${MLX5EMU_LAYERS_FILE})
file(STRINGS ${MLX5EMU_LAYERS_FILE} _mlx5emu_rows REGEX "^[A-Za-z]")
set(MLX5EMU_LAYERS "")
foreach(_row ${_mlx5emu_rows})
  string(REGEX REPLACE "[ \t]+" ";" _f "${_row}")
  list(POP_FRONT _f _name _dir)
  set(MLX5EMU_LAYER_${_name}_DIR ${_dir})
  set(MLX5EMU_LAYER_${_name}_USES ${_f})
  list(APPEND MLX5EMU_LAYERS ${_name})
endforeach()

function(_mlx5emu_link tree rel target)
  set(_at ${tree}/${rel})
  if(EXISTS ${_at} OR IS_SYMLINK ${_at})
    return()
  endif()
  get_filename_component(_parent ${_at} DIRECTORY)
  file(MAKE_DIRECTORY ${_parent})
  file(CREATE_LINK ${target} ${_at} SYMBOLIC)
endfunction()

# Stages the include tree of component <target> and makes it the target's
# only project include root.
function(mlx5emu_layer_includes target)
  if(NOT DEFINED MLX5EMU_LAYER_${target}_DIR)
    message(FATAL_ERROR "${target}: no row in cmake/layers.txt")
  endif()
  set(_tree ${CMAKE_BINARY_DIR}/inc/${target})
  file(REMOVE_RECURSE ${_tree})
  file(MAKE_DIRECTORY ${_tree})
  set(_dirs ${MLX5EMU_LAYER_${target}_DIR})
  set(_files "")
  set(_gen OFF)
  if(target STREQUAL "mlx5emu_prm")
    set(_gen ON)
  endif()
  foreach(_use ${MLX5EMU_LAYER_${target}_USES})
    if(_use STREQUAL "-" OR _use MATCHES "^@")
      continue()
    elseif(_use STREQUAL "mlx5emu")
      _mlx5emu_link(${_tree} mlx5emu ${CMAKE_SOURCE_DIR}/include/mlx5emu)
    elseif(_use MATCHES "/")
      list(APPEND _files ${_use})
    elseif(DEFINED MLX5EMU_LAYER_${_use}_DIR)
      list(APPEND _dirs ${MLX5EMU_LAYER_${_use}_DIR})
      if(_use STREQUAL "mlx5emu_prm")
        set(_gen ON)
      endif()
    else()
      message(FATAL_ERROR "cmake/layers.txt: ${target} uses unknown ${_use}")
    endif()
  endforeach()
  # Whole directories first: a single header below one is then already there.
  foreach(_d ${_dirs})
    _mlx5emu_link(${_tree} ${_d} ${CMAKE_SOURCE_DIR}/${_d})
  endforeach()
  foreach(_f ${_files})
    if(NOT EXISTS ${CMAKE_SOURCE_DIR}/${_f})
      message(FATAL_ERROR "cmake/layers.txt: ${target} uses missing ${_f}")
    endif()
    _mlx5emu_link(${_tree} ${_f} ${CMAKE_SOURCE_DIR}/${_f})
  endforeach()
  target_include_directories(${target} PRIVATE ${_tree})
  if(_gen)
    # prm/prm_layouts.h, generated (prm/CMakeLists.txt).
    target_include_directories(${target} PRIVATE ${MLX5EMU_PRM_GEN_DIR})
    add_dependencies(${target} mlx5emu_prm_gen)
  endif()
endfunction()
