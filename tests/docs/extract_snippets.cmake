# Extracts every ```cpp block of the documentation pages into one C++
# translation unit, so that the examples a reader copies are compiled and run
# by the test suite (tests/docs/CMakeLists.txt).
#
#   cmake -DSOURCE_DIR=<repository root> -DPAGES=README.md,docs/tutorial.md,...
#         -DOUTPUT=<generated .cc> -P extract_snippets.cmake
#
# Each block must be a complete program: it includes only "iklab.h" and
# standard headers (<iostream>, <vector>, ...) and defines `int main()` or
# `int main(int argc, char** argv)`. In the generated file
#
#  * the #include lines of all blocks are hoisted to the top, deduplicated
#    (the block keeps an empty line in their place, so line numbers hold);
#  * block n of page P becomes `namespace snippet_<P>_<n> { ... }`, preceded by
#    `#line <line> "<P>"`, so a compile error names the page and its line;
#    the block's `main` is then snippet_<P>_<n>::main, an ordinary function;
#  * a real main() runs every block's main in page order and prints
#    "<P> block <n>: ok", or names the page, block and line of every block
#    that returned non-zero or threw, and exits 1.
#
# A `main(argc, argv)` (a program built on RunCommandLine) is called with the
# arguments {"doc-snippet", "list"}. Fences other than ```cpp that name C++
# (```c++, ```cc, ```C++) are refused, so no C++ example escapes the test; an
# illustration that cannot run belongs in a ```text block.

cmake_minimum_required(VERSION 3.16)

foreach(variable SOURCE_DIR PAGES OUTPUT)
  if(NOT DEFINED ${variable} OR "${${variable}}" STREQUAL "")
    message(FATAL_ERROR "extract_snippets.cmake: set -D${variable}=...")
  endif()
endforeach()
string(REPLACE "," ";" pages "${PAGES}")

# CMake lists split at ';', and a '\;' or a ';' inside [...] does not split:
# these characters are replaced by markers while the text is a list of lines.
function(iklab_protect text out)
  string(REPLACE "\\" "@IKLAB_BACKSLASH@" text "${text}")
  string(REPLACE ";" "@IKLAB_SEMICOLON@" text "${text}")
  string(REPLACE "[" "@IKLAB_OPEN@" text "${text}")
  string(REPLACE "]" "@IKLAB_CLOSE@" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
function(iklab_restore text out)
  string(REPLACE "@IKLAB_BACKSLASH@" "\\" text "${text}")
  string(REPLACE "@IKLAB_SEMICOLON@" ";" text "${text}")
  string(REPLACE "@IKLAB_OPEN@" "[" text "${text}")
  string(REPLACE "@IKLAB_CLOSE@" "]" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(includes "#include <exception>" "#include <iostream>" "#include <string>")
set(namespaces "")     # the blocks, wrapped
set(calls "")          # the runner's calls, one per block
set(total 0)
# The generated file's own line count, for the #line that hands numbering
# back to it after each block.
set(output_line 0)

foreach(page IN LISTS pages)
  set(path "${SOURCE_DIR}/${page}")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "extract_snippets.cmake: ${page} does not exist")
  endif()
  string(REGEX REPLACE "\\.md$" "" id "${page}")
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" id "${id}")

  file(READ "${path}" text)
  iklab_protect("${text}" text)
  string(REPLACE "\n" ";" lines "${text}")

  set(line_number 0)
  set(in_block OFF)
  set(block 0)
  foreach(line IN LISTS lines)
    math(EXPR line_number "${line_number} + 1")
    iklab_restore("${line}" line)
    if(NOT in_block)
      if(line MATCHES "^[ ]*```[ ]*cpp[ ]*$")
        set(in_block ON)
        math(EXPR block "${block} + 1")
        math(EXPR first_line "${line_number} + 1")
        set(body "")
        set(has_main OFF)
      elseif(line MATCHES "^[ ]*```[ ]*([Cc]\\+\\+|cc|cxx|hpp|c)[ ]*$")
        message(FATAL_ERROR "${page}:${line_number}: write C++ examples as "
                "```cpp (they are compiled and run by the test suite), or as "
                "```text if the example cannot run")
      endif()
      continue()
    endif()

    if(line MATCHES "^[ ]*```[ ]*$")
      # End of the block: wrap it.
      set(in_block OFF)
      if(NOT has_main)
        message(FATAL_ERROR "${page}:${first_line}: this ```cpp block has no "
                "`int main(`: every ```cpp block must be a complete program "
                "(use ```text for an illustration that cannot run)")
      endif()
      set(name "snippet_${id}_${block}")
      string(APPEND namespaces
             "namespace ${name} {\n#line ${first_line} \"${page}\"\n${body}")
      # Lines written so far by this block: the namespace line, the #line,
      # the body's lines; the closing brace and the #line follow.
      string(REGEX MATCHALL "\n" newlines "${body}")
      list(LENGTH newlines body_lines)
      math(EXPR output_line "${output_line} + 2 + ${body_lines} + 2")
      string(APPEND namespaces "}  // namespace ${name}\n"
             "#line ${output_line} \"@IKLAB_GENERATED@\"\n")
      string(APPEND calls
             "  failed += !iklab_doc_snippets::Run(\"${page}\", ${block}, "
             "${first_line}, &${name}::main);\n")
      math(EXPR total "${total} + 1")
      continue()
    endif()

    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*(.*)$")
      set(header "${CMAKE_MATCH_1}")
      string(STRIP "${header}" header)
      if(NOT header MATCHES "^(\"iklab\\.h\"|<[a-z_]+>)$")
        message(FATAL_ERROR "${page}:${line_number}: a documentation example "
                "includes only \"iklab.h\" and standard headers, not ${header}")
      endif()
      set(directive "#include ${header}")
      if(NOT directive IN_LIST includes)
        list(APPEND includes "${directive}")
      endif()
      string(APPEND body "\n")  # keeps the lines of the block aligned
      continue()
    endif()
    if(line MATCHES "(^|[^A-Za-z0-9_])int[ \t]+main[ \t]*\\(")
      set(has_main ON)
    endif()
    string(APPEND body "${line}\n")
  endforeach()
  if(in_block)
    message(FATAL_ERROR "${page}:${first_line}: ```cpp block not closed")
  endif()
endforeach()

if(total EQUAL 0)
  message(FATAL_ERROR "extract_snippets.cmake: no ```cpp block in ${PAGES}")
endif()

# The file: header comment and includes first; their line count shifts every
# #line that hands numbering back to the generated file.
set(head "// Generated by tests/docs/extract_snippets.cmake from ${PAGES}.\n"
         "// Do not edit: edit the ```cpp blocks of those pages.\n")
string(JOIN "" head ${head})
foreach(directive IN LISTS includes)
  string(APPEND head "${directive}\n")
endforeach()
string(APPEND head "\n")
string(REGEX MATCHALL "\n" newlines "${head}")
list(LENGTH newlines head_lines)

# Fix the hand-back #lines: each was counted from the first namespace line.
set(fixed "")
string(REGEX MATCHALL "#line [0-9]+ \"@IKLAB_GENERATED@\"" handbacks "${namespaces}")
set(rest "${namespaces}")
foreach(handback IN LISTS handbacks)
  string(FIND "${rest}" "${handback}" at)
  string(SUBSTRING "${rest}" 0 ${at} before)
  string(LENGTH "${handback}" length)
  math(EXPR after_start "${at} + ${length}")
  string(SUBSTRING "${rest}" ${after_start} -1 rest)
  string(REGEX REPLACE "#line ([0-9]+) .*" "\\1" counted "${handback}")
  math(EXPR line_of_next "${counted} + ${head_lines} + 1")
  string(APPEND fixed "${before}#line ${line_of_next} \"${OUTPUT}\"")
endforeach()
string(APPEND fixed "${rest}")

set(runner [=[
namespace iklab_doc_snippets {

int Call(int (*main_function)()) { return main_function(); }

// A program built on RunCommandLine: run its cheapest command.
int Call(int (*main_function)(int, char**)) {
  static char program[] = "doc-snippet";
  static char command[] = "list";
  char* argv[] = {program, command, nullptr};
  return main_function(2, argv);
}

template <typename Main>
bool Run(const char* page, int block, int line, Main* main_function) {
  std::string failure;
  try {
    const int code = Call(main_function);
    if (code != 0) failure = "main returned " + std::to_string(code);
  } catch (const std::exception& e) {
    failure = std::string("threw: ") + e.what();
  } catch (...) {
    failure = "threw an exception of unknown type";
  }
  std::cout.flush();
  if (!failure.empty()) {
    std::cerr << page << " block " << block << " (line " << line
              << "): FAILED: " << failure << "\n";
    return false;
  }
  std::cout << page << " block " << block << ": ok" << std::endl;
  return true;
}

}  // namespace iklab_doc_snippets

int main() {
  int failed = 0;
]=])
set(tail [=[
  if (failed > 0) {
    std::cerr << failed << " documentation snippet(s) failed\n";
    return 1;
  }
  return 0;
}
]=])

set(content "${head}${fixed}${runner}${calls}${tail}")
# Write only when changed, so an edit elsewhere in a page that leaves its
# code alone does not recompile.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
