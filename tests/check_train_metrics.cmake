# SPDX-License-Identifier: GPL-3.0-or-later
# cli_train_metrics_format: `rsalab-cli train --session` writes the run folder's metrics.csv and the
# bundle's metrics/run-0.csv through one writer. The bundle's file is metrics.csv followed by the
# test evaluation row, so metrics.csv must be a prefix of it, header included.
# -DCLI=path/to/rsalab-cli -DOUT=scratch folder
file(REMOVE_RECURSE "${OUT}")
execute_process(
  COMMAND "${CLI}" train --model gru --steps 6 --eval-every 3 --length 16 --d-model 8 --layers 1
          --out "${OUT}/run" --session "${OUT}/session"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli train --session failed (${rc}):\n${out}\n${err}")
endif()
set(run_csv "${OUT}/run/metrics.csv")
set(bundle_csv "${OUT}/session.rsalab/metrics/run-0.csv")
foreach(f "${run_csv}" "${bundle_csv}")
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "missing ${f}:\n${out}")
  endif()
endforeach()
file(READ "${run_csv}" run_text)
file(READ "${bundle_csv}" bundle_text)
string(FIND "${bundle_text}" "${run_text}" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "metrics.csv is not in the bundle's format:\n--- metrics.csv\n${run_text}\n"
                      "--- metrics/run-0.csv\n${bundle_text}")
endif()
if(NOT run_text MATCHES "^kind,step,samples_seen,"
   OR NOT run_text MATCHES "\ntrain,6,"
   OR NOT run_text MATCHES "\neval,3,[^\n]*,validation,")
  message(FATAL_ERROR "metrics.csv lacks its header, step 6 or the validation row:\n${run_text}")
endif()
if(NOT bundle_text MATCHES "\neval,6,[^\n]*,test,")
  message(FATAL_ERROR "the bundle lacks the test row:\n${bundle_text}")
endif()
