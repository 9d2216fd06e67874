package executor

// destsOf returns, per input row of r, the index of the part whose rows
// hold it (-1: none), read from the parts' ordinals (Part.Sel) apart from
// the Merger: what the tests' sinks check the output order with.
func destsOf(r *Step) []int16 {
	dest := make([]int16, r.N)
	for i := range dest {
		dest[i] = -1
	}
	for k := range r.Parts {
		for _, i := range r.Parts[k].Sel {
			dest[i] = int16(k)
		}
	}
	return dest
}
