# SPDX-License-Identifier: GPL-3.0-or-later
# A claim preset's CLI run: it exits 0 and prints at least one verdict line that parses into one
# of the outcomes (holds / does not hold here / inconclusive / undecided, or with its ground: holds
# on RSA's home ground (rem) / does not hold on the power process / …), and its output matches
# EXPECT. PASS_REGULAR_EXPRESSION alone ignored the exit code and accepted any verdict.
# -DCLI=rsalab-cli -DARGS="train|--preset|…" (arguments joined by |) -DEXPECT=regex
# [-DNO_VERDICT=ON: a command without a claim, checked for its exit code and EXPECT only]
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND "${CLI}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rsalab-cli ${ARGS} exited ${rc}:\n${out}\n${err}")
endif()
if(NOT NO_VERDICT AND NOT out MATCHES "(^|\n)(holds|does not hold here|does not hold|inconclusive|undecided)( on [^:\n]+)?: [^\n]+ — [^\n]+")
  message(FATAL_ERROR "no verdict line (outcome: claim — detail) in:\n${out}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}':\n${out}")
endif()
