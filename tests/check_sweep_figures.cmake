# SPDX-License-Identifier: GPL-3.0-or-later
# cli_sweep_figures: runs a tiny `rsalab-cli sweep --figures` and checks what it wrote.
# -DCLI=path/to/rsalab-cli -DOUT=scratch folder -DGUI=ON|OFF
file(REMOVE_RECURSE "${OUT}")
execute_process(
  COMMAND "${CLI}" sweep --models rnn,gru --sizes 8,16 --seeds 1 --steps 3 --eval-every 3
          --length 16 --d-model 8 --layers 1 --out "${OUT}/sweep" --figures "${OUT}/figures"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT GUI)
  if(rc EQUAL 0 OR NOT err MATCHES "unavailable")
    message(FATAL_ERROR "without the GUI --figures must fail saying it is unavailable (rc ${rc}): ${err}")
  endif()
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli sweep --figures failed (${rc}):\n${out}\n${err}")
endif()
foreach(name sample_efficiency loss)
  set(png "${OUT}/figures/${name}.png")
  set(svg "${OUT}/figures/${name}.svg")
  if(NOT EXISTS "${png}" OR NOT EXISTS "${svg}")
    message(FATAL_ERROR "missing ${png} or ${svg}:\n${out}")
  endif()
  file(SIZE "${png}" size)
  file(READ "${png}" magic LIMIT 8 HEX)
  if(NOT magic STREQUAL "89504e470d0a1a0a" OR size LESS 2000)
    message(FATAL_ERROR "${png} is not a PNG (magic ${magic}, ${size} bytes)")
  endif()
  file(READ "${svg}" text)
  if(NOT text MATCHES "<svg[ >]" OR NOT text MATCHES "</svg>[ \n]*$")
    message(FATAL_ERROR "${svg} has no <svg> root")
  endif()
endforeach()
message(STATUS "figures ok: ${out}")
