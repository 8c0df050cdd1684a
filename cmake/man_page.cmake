# Writes the manual page of `etdem` or of one of its subcommands from the command line's own
# --help (CLI11) with help2man. Run at build time by CMakeLists.txt:
#   cmake -DHELP2MAN=... -DETDEM=<bin>/etdem -DCOMMAND="analyze repose" -DPAGE=etdem-analyze-repose
#         -DDESCRIPTION="..." -DVERSION=0.9.0 -DOUTPUT=<dir>/etdem-analyze-repose.1 -P man_page.cmake
get_filename_component(bindir ${ETDEM} DIRECTORY)
set(help_option "--help")
if(COMMAND)
  set(help_option "${COMMAND} --help")
endif()
# etdem found on PATH, so the pages show "Usage: etdem ...", not the build directory.
set(ENV{PATH} "${bindir}:$ENV{PATH}")
execute_process(
  COMMAND ${HELP2MAN} --no-info --help-option=${help_option} --version-string=${VERSION}
          --name=${DESCRIPTION} --section=1 "--source=etdem ${VERSION}"
          --manual=etdem etdem
  OUTPUT_VARIABLE page RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0 OR NOT page)
  message(FATAL_ERROR "help2man failed for ${PAGE}: ${errors}")
endif()
if(NOT PAGE STREQUAL "etdem")
  # help2man names the page after the program: name it after the subcommand instead.
  string(TOUPPER ${PAGE} title)
  string(REGEX REPLACE "\n\\.TH ETDEM " "\n.TH ${title} " page "${page}")
  string(REGEX REPLACE "\n\\.SH NAME\netdem \\\\- " "\n.SH NAME\n${PAGE} \\\\- " page "${page}")
endif()
file(WRITE ${OUTPUT} "${page}")
