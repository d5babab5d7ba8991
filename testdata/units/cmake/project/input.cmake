cmake_minimum_required(VERSION 3.16)
project(demo VERSION 1.0 LANGUAGES C)

option(DEMO_TESTS "Build the tests" ON)
set(DEMO_SOURCES src/main.c src/util.c)

#[[ A bracket comment
    spanning lines ]]
find_package(Threads REQUIRED)
include(cmake/warnings.cmake)

# Adds the project's warning flags to a target.
function(demo_warnings target)
  target_compile_options(${target} PRIVATE -Wall)
  message(STATUS "warnings for ${target}")
endfunction()

add_library(demo_core STATIC ${DEMO_SOURCES})
target_link_libraries(demo_core PUBLIC Threads::Threads)
demo_warnings(demo_core)

add_executable(demo src/cli.c)

if(DEMO_TESTS)
  add_subdirectory(tests)
endif()
