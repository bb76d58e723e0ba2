# SPDX-License-Identifier: GPL-3.0-or-later
# cli_result_too_few: a test part below the word's minimum (2h + 10 targets: lynx's 4-step test
# part holds fewer than 18) gets no word. result.json's verdict is "too few test targets to
# decide", never "ties", and the closing line and sweep.csv say so.
# -DCLI=path/to/rsalab-cli -DOUT=scratch folder
file(REMOVE_RECURSE "${OUT}")
execute_process(
  COMMAND "${CLI}" train --series lynx --model gru --horizon 4 --steps 6 --eval-every 3
          --d-model 8 --layers 1 --out "${OUT}/run"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli train --series lynx --horizon 4 failed (${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "skill vs the best reference, [^\n]*: too few test targets to decide")
  message(FATAL_ERROR "the closing line gives a word on too few targets:\n${out}")
endif()
file(READ "${OUT}/run/result.json" result)
string(FIND "${result}" "\"skill_vs_best_anchor_verdict\": \"too few test targets to decide\"" at)
if(at LESS 0)
  message(FATAL_ERROR "result.json lacks the too-few word:\n${result}")
endif()
string(FIND "${result}" "\"min_targets\": 18" at)
if(at LESS 0)
  message(FATAL_ERROR "result.json does not state N_min = 18 for h = 4:\n${result}")
endif()
# The same in sweep.csv's skill_verdict column.
execute_process(
  COMMAND "${CLI}" sweep --series lynx --models gru --horizon 4 --steps 6 --seeds 1 --d-model 8
          --layers 1 --out "${OUT}/sweep"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli sweep --series lynx --horizon 4 failed (${rc}):\n${out}\n${err}")
endif()
file(READ "${OUT}/sweep/sweep.csv" csv)
if(NOT csv MATCHES "\ngru,[^\n]*,too few test targets to decide\n")
  message(FATAL_ERROR "sweep.csv gives a word on too few targets:\n${csv}")
endif()
