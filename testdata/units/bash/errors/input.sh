ok() {
	echo ok
}

broken() {
	if [ -n "$x" ]; then
		echo yes
}

after() {
	ok
}
