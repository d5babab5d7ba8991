package main

func ok() int {
	return 1
}

func broken( {
	return
}

func after() int {
	return ok()
}
