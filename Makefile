# Developer shortcuts. The native checks build in build/check-native/ and leave the editable install alone.
.PHONY: check-native check-asan check-valgrind check-valgrind-quick

check-native:  ## ASan + UBSan core tests, then valgrind memcheck of the kernel and line-search tests
	tools/check-native.sh all

check-asan:
	tools/check-native.sh asan

check-valgrind:
	tools/check-native.sh valgrind

check-valgrind-quick:  ## the core entry points directly under memcheck (minutes, no pytest)
	tools/check-native.sh valgrind-quick
