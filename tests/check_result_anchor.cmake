# SPDX-License-Identifier: GPL-3.0-or-later
# cli_result_best_anchor: on a bundled real series, `rsalab-cli train` closes with the skill vs
# the best reference (the reference with the lowest validation loss), and result.json carries it
# beside every reference's skill, ETS, auto ARIMA and Theta among them.
# -DCLI=path/to/rsalab-cli -DOUT=scratch folder
file(REMOVE_RECURSE "${OUT}")
execute_process(
  COMMAND "${CLI}" train --series lynx --model gru --steps 6 --eval-every 3 --d-model 8
          --layers 1 --out "${OUT}/run"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli train --series lynx failed (${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "<- best reference \\(lowest validation loss\\)"
   OR NOT out MATCHES "skill vs the best reference, [^:]+: [+-][0-9]")
  message(FATAL_ERROR "the closing lines lack the best reference's skill:\n${out}")
endif()
file(READ "${OUT}/run/result.json" result)
foreach(key "\"best_anchor\"" "\"skill_vs_best_anchor\"" "\"name\": \"ets\""
            "\"name\": \"auto_arima\"" "\"name\": \"theta\"")
  string(FIND "${result}" "${key}" at)
  if(at LESS 0)
    message(FATAL_ERROR "result.json lacks ${key}:\n${result}")
  endif()
endforeach()
