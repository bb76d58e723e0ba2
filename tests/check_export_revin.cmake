# SPDX-License-Identifier: GPL-3.0-or-later
# cli_export_revin: `rsalab-cli export` of a run trained with --norm revin writes RevIN's scale and
# shift (revin_weight, revin_bias) with the model, its metadata flag revin "yes", and says so; the
# file keeps LibTorch's names (the peer has no RevIN).
# -DCLI=path/to/rsalab-cli -DOUT=scratch folder
file(REMOVE_RECURSE "${OUT}")
execute_process(
  COMMAND "${CLI}" train --series airpassengers --model gru --norm revin --anchors none --steps 5
          --d-model 8 --layers 1 --out "${OUT}/run"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli train --norm revin failed (${rc}):\n${out}\n${err}")
endif()
execute_process(
  COMMAND "${CLI}" export --run "${OUT}/run" --out "${OUT}/model.safetensors"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli export failed (${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "RevIN's affine \\(norm revin\\): revin_weight and revin_bias, 1 value\\(s\\) each"
   OR NOT out MATCHES "names: LibTorch's \\([^\n]*RevIN")
  message(FATAL_ERROR "the export output does not say RevIN's affine is in the file:\n${out}")
endif()
# The safetensors header: an 8-byte little-endian length, then that much JSON.
file(READ "${OUT}/model.safetensors" length_hex LIMIT 8 HEX)
set(length 0)
foreach(i RANGE 7 0 -1)
  math(EXPR at "2 * ${i}")
  string(SUBSTRING "${length_hex}" ${at} 2 byte)
  math(EXPR length "${length} * 256 + 0x${byte}")
endforeach()
file(READ "${OUT}/model.safetensors" header OFFSET 8 LIMIT ${length})
foreach(pattern "\"revin_weight\": *{[^}]*\"dtype\": *\"F32\"[^}]*\"shape\": *\\[1\\]"
                "\"revin_bias\": *{[^}]*\"dtype\": *\"F32\"[^}]*\"shape\": *\\[1\\]"
                "\"revin\": *\"yes\"")
  if(NOT header MATCHES "${pattern}")
    message(FATAL_ERROR "the exported header does not match ${pattern}:\n${header}")
  endif()
endforeach()
