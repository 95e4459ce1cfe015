#!/bin/sh
# PLACEHOLDER: fails until written
echo "cli: not written yet"; exit 1
