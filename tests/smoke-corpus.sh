#!/bin/sh
# PLACEHOLDER: fails until written
echo "smoke-corpus: not written yet"; exit 1
