# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of kdapl's documentation, for Debian's
# python3-sphinx: make htmldocs, or
#   sphinx-build -W -b html Documentation build/htmldocs
#
# The pages are written as for the kernel's Documentation/, but use only
# standard reStructuredText and Sphinx directives, so no extension of the
# kernel's (kernel-doc, kernel-abi, ...) is needed.

project = 'kdapl'
copyright = '2026, The kdapl authors'
author = 'The kdapl authors'

root_doc = 'index'
exclude_patterns = []

# Builtin theme: nothing to install beyond python3-sphinx, and no
# network at build time.
html_theme = 'alabaster'
html_title = 'kdapl: DAT 2.0 over the RDMA stack'
html_show_sourcelink = False
