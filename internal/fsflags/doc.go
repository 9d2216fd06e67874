// Package fsflags holds the open(2) flags that streamql's file writers add
// where the system has them: NoFollow (a sink or side file is never written
// through a symbolic link, SPEC 1 and 4) and NonBlock (opening a named pipe
// does not wait for a reader). Where the system lacks one (Windows) it is 0
// and the callers' Lstat and Stat checks do the refusing. It is a leaf: it
// imports nothing of streamql.
package fsflags
