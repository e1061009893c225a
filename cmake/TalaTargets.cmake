# tala_library(), tala_executable(), tala_test(): warnings, C++20 and sanitizers on OUR targets only.
function(_tala_apply_flags target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE -Wall -Wextra
    # Designated initializers that leave defaulted fields out are our option-struct style.
    -Wno-missing-field-initializers)
  if(TALA_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(TALA_SANITIZE)
    # A sanitizer finding must fail the test that hit it, not scroll past in its log.
    target_compile_options(${target} PRIVATE -fsanitize=${TALA_SANITIZE} -fno-omit-frame-pointer
      -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=${TALA_SANITIZE})
  endif()
endfunction()

# tala_library(NAME SOURCES ... DEPS ...): one layer of the library.
function(_tala_unity target)
  if(TALA_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 12)
  endif()
endfunction()

function(tala_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  _tala_unity(${name})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  _tala_apply_flags(${name})
endfunction()

function(tala_executable name)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  _tala_unity(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  if(ARG_OUTPUT_NAME)
    set_target_properties(${name} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME}
                                             RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  endif()
  _tala_apply_flags(${name})
endfunction()

# tala_test(NAME SOURCES ... DEPS ... LABEL unit|integration|e2e): one test executable per folder.
function(tala_test name)
  cmake_parse_arguments(ARG "" "LABEL" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE
    TALA_SOURCE_DIR="${PROJECT_SOURCE_DIR}" TALA_BINARY_DIR="${PROJECT_BINARY_DIR}")
  _tala_apply_flags(${name})
  gtest_discover_tests(${name} PROPERTIES LABELS ${ARG_LABEL} DISCOVERY_TIMEOUT 60)
endfunction()
