cmake_minimum_required(VERSION 3.16)
project(widget C)

option(WIDGET_TESTS "Build the tests" ON)
set(WIDGET_SOURCES src/main.c src/util.c)

find_package(Threads REQUIRED)
include(cmake/warnings.cmake)

function(widget_add_test name)
  add_executable(${name} tests/${name}.c)
  target_link_libraries(${name} widget)
  add_test(NAME ${name} COMMAND ${name})
endfunction()

add_library(widget STATIC ${WIDGET_SOURCES})
if(WIDGET_TESTS)
  set(INNER 1)
  widget_add_test(test_util)
endif()
add_subdirectory(docs)
