# Sourced by the build scripts: ccache's settings for this project (paths relative to the checkout, precompiled
# headers allowed, a cache big enough for the default, asan and engine-only builds together).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
