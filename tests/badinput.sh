#!/bin/sh
# PLACEHOLDER: fails until written
echo "badinput: not written yet"; exit 1
