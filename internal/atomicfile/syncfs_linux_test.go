package atomicfile

import "testing"

func TestKernelAtLeast(t *testing.T) {
	for release, want := range map[string]bool{
		"6.18.44-fc-v595": true, "5.8.0": true, "5.8-rc1": true, "5.10.0-21-amd64": true,
		"5.7.19": false, "4.18.0-553.el8_10.x86_64": false, "3": false, "": false, "x.y": false,
	} {
		if got := kernelAtLeast(release, 5, 8); got != want {
			t.Errorf("kernelAtLeast(%q, 5, 8) = %v, want %v", release, got, want)
		}
	}
}
