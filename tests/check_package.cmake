# SPDX-License-Identifier: GPL-3.0-or-later
# package_deb: the Debian package as a user gets it. Runs `cpack -G DEB` on the build folder (the
# install rules of app/packaging/CMakeLists.txt; cpack installs what is built, it builds nothing and
# runs no tests), checks the file name, the file list (dpkg-deb -c) and Depends (dpkg-shlibdeps),
# unpacks it into a scratch root (dpkg -x) and runs the unpacked rsalab-cli from there with the
# source-tree fallback off (RSALAB_NO_SOURCE_FALLBACK=1, RSALAB_RESOURCES unset): --version and a
# 20-step train on a bundled series, which only the installed <root>/usr/share/rsalab can provide.
# A copy of the binary away from share/rsalab must then fail to find the series (the check is not
# passing through some other lookup).
# -DBIN=build folder -DOUT=scratch folder -DCPACK=cpack -DVERSION=x.y.z -DGUI=ON|OFF
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

string(TIMESTAMP t0 "%s")
execute_process(COMMAND "${CPACK}" -G DEB --config "${BIN}/CPackConfig.cmake" -B "${OUT}"
  WORKING_DIRECTORY "${BIN}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t1 "%s")
math(EXPR seconds "${t1} - ${t0}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cpack -G DEB failed (${rc}):\n${out}\n${err}")
endif()
set(deb "${OUT}/rsalab_${VERSION}_amd64.deb")
if(NOT EXISTS "${deb}")
  file(GLOB made "${OUT}/*.deb")
  message(FATAL_ERROR "no ${deb} (made: ${made}):\n${out}")
endif()
file(SIZE "${deb}" bytes)
math(EXPR kib "${bytes} / 1024")
message(STATUS "cpack: ${deb}, ${kib} KiB, ${seconds} s")

# The file list: what must be there, and no other executable.
execute_process(COMMAND dpkg-deb -c "${deb}" RESULT_VARIABLE rc OUTPUT_VARIABLE listing)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg-deb -c ${deb} failed (${rc})")
endif()
message(STATUS "dpkg-deb -c:\n${listing}")
set(expected
  ./usr/bin/rsalab-cli
  ./usr/share/rsalab/first_minute.json
  ./usr/share/rsalab/series/airpassengers.csv
  ./usr/share/rsalab/series/lynx.csv
  ./usr/share/rsalab/series/README.md
  ./usr/share/rsalab/text/us_founding_documents.txt
  ./usr/share/man/man1/rsalab-cli.1.gz
  ./usr/share/doc/rsalab/LICENSE
  ./usr/share/doc/rsalab/THIRD_PARTY.md)
if(GUI)
  list(APPEND expected ./usr/bin/rsalab ./usr/share/applications/rsalab.desktop
    ./usr/share/icons/hicolor/scalable/apps/rsalab.svg)
endif()
foreach(path ${expected})
  string(REPLACE "." "\\." pattern "${path}")
  if(NOT listing MATCHES " ${pattern}\n")
    message(FATAL_ERROR "${deb} lacks ${path}")
  endif()
endforeach()
string(REGEX MATCHALL " \\./usr/bin/[^\n]+" binaries "${listing}")
foreach(b ${binaries})
  if(NOT b MATCHES "^ \\./usr/bin/rsalab(-cli)?$")
    message(FATAL_ERROR "${deb} installs ${b}: only rsalab and rsalab-cli belong in /usr/bin")
  endif()
endforeach()
if(listing MATCHES "test_|fuzz|bench")
  message(FATAL_ERROR "${deb} holds test, fuzz or bench files")
endif()

# Depends, from dpkg-shlibdeps: the libraries the binaries link, LibTorch among them.
execute_process(COMMAND dpkg-deb -f "${deb}" Depends OUTPUT_VARIABLE depends
  OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "Depends: ${depends}")
if(NOT depends MATCHES "libc6 " OR NOT depends MATCHES "libtorch")
  message(FATAL_ERROR "Depends does not come from dpkg-shlibdeps: '${depends}'")
endif()

# Unpacked, with only the installed layout to find the data in.
set(root "${OUT}/root")
execute_process(COMMAND dpkg -x "${deb}" "${root}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg -x ${deb} failed (${rc})")
endif()
set(installed_only ${CMAKE_COMMAND} -E env --unset=RSALAB_RESOURCES RSALAB_NO_SOURCE_FALLBACK=1)
execute_process(COMMAND ${installed_only} "${root}/usr/bin/rsalab-cli" --version
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^rsalab-cli ${VERSION}")
  message(FATAL_ERROR "<root>/usr/bin/rsalab-cli --version (${rc}):\n${out}\n${err}")
endif()
set(train train --model gru --series airpassengers --steps 20 --anchors none)
execute_process(COMMAND ${installed_only} "${root}/usr/bin/rsalab-cli" ${train}
  --out "${OUT}/run" WORKING_DIRECTORY "${OUT}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "stopped: [^\n]* after [0-9]+ steps")
  message(FATAL_ERROR "<root>/usr/bin/rsalab-cli ${train} (${rc}):\n${out}\n${err}")
endif()
message(STATUS "installed rsalab-cli ${train}:\n${out}")

# The same binary without share/rsalab beside it finds nothing: the train above used the package's.
file(MAKE_DIRECTORY "${OUT}/bare/bin")
file(COPY "${root}/usr/bin/rsalab-cli" DESTINATION "${OUT}/bare/bin")
execute_process(COMMAND ${installed_only} "${OUT}/bare/bin/rsalab-cli" ${train}
  --out "${OUT}/bare-run" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "airpassengers.csv not found")
  message(FATAL_ERROR "rsalab-cli without share/rsalab still found the series (${rc}):\n${err}")
endif()

if(GUI)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
    "${root}/usr/bin/rsalab" --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\\[session\\]")
    message(FATAL_ERROR "<root>/usr/bin/rsalab --help (${rc}):\n${out}\n${err}")
  endif()
  find_program(validate desktop-file-validate)
  if(validate)
    execute_process(COMMAND "${validate}"
      "${root}/usr/share/applications/rsalab.desktop" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "desktop-file-validate rsalab.desktop (${rc}):\n${out}")
    endif()
  endif()
endif()
message(STATUS "package_deb: ok (${kib} KiB; cpack ${seconds} s)")
