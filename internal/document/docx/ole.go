package docx

import (
	"bytes"
	"encoding/binary"
)

// oleSignature opens every OLE compound file (CFB), which is what Office
// wraps an encrypted OOXML document in.
var oleSignature = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// encryptedPackage is the name of the stream that holds an encrypted
// OOXML package, in UTF-16LE as a compound file's directory spells it.
var encryptedPackage = func() []byte {
	var b []byte
	for _, c := range "EncryptedPackage" {
		b = append(b, byte(c), 0)
	}
	return b
}()

// The bounds on looking for the EncryptedPackage stream: the head of the
// file, then the directory's sectors.
const (
	oleHeadScan   = 64 << 10
	oleDirSectors = 64
)

func isOLE(raw []byte) bool { return bytes.HasPrefix(raw, oleSignature) }

// encryptedOLE reports whether a compound file holds an EncryptedPackage
// stream: whether its name is in the file's first oleHeadScan bytes, or
// in the first oleDirSectors sectors of the directory, followed through
// the allocation table sectors that the header lists. Both are bounded,
// whatever the header says.
func encryptedOLE(raw []byte) bool {
	if bytes.Contains(raw[:min(len(raw), oleHeadScan)], encryptedPackage) {
		return true
	}
	if len(raw) < 512 {
		return false
	}
	shift := binary.LittleEndian.Uint16(raw[30:])
	if shift != 9 && shift != 12 {
		return false
	}
	size := 1 << shift
	sector := func(n uint32) []byte {
		off := (int64(n) + 1) << shift
		if n >= 0xFFFFFFFA || off+int64(size) > int64(len(raw)) {
			return nil
		}
		return raw[off : off+int64(size)]
	}
	// The header lists the first 109 sectors of the allocation table,
	// which map the first 109*size/4 sectors of the file: enough for the
	// directory of any encrypted document.
	next := func(n uint32) uint32 {
		perSector := uint32(size / 4)
		i := n / perSector
		if i >= 109 {
			return 0xFFFFFFFE
		}
		fat := sector(binary.LittleEndian.Uint32(raw[76+4*i:]))
		if fat == nil {
			return 0xFFFFFFFE
		}
		return binary.LittleEndian.Uint32(fat[4*(n%perSector):])
	}
	n := binary.LittleEndian.Uint32(raw[48:])
	for range oleDirSectors {
		s := sector(n)
		if s == nil {
			return false
		}
		if bytes.Contains(s, encryptedPackage) {
			return true
		}
		n = next(n)
	}
	return false
}
