package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running throwaway server.
type Cluster struct {
	// URL connects to its database "heed" as user "heed", by password
	// "pw" (so that redaction can be tested), over loopback.
	URL  string
	dir  string
	bin  string
	as   []string // the runuser prefix when the server runs as postgres
	port int
	n    int // databases made, for fresh ones
	mu   sync.Mutex
}

// bindir finds PostgreSQL's server binaries: on PATH, or in Debian's
// /usr/lib/postgresql/VERSION/bin, the newest version first.
func bindir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL server binaries (initdb) on PATH or in /usr/lib/postgresql/*/bin; install Debian's postgresql-15")
}

// Start starts a cluster, or skips tb (fails it with HEED_POSTGRES=required)
// when PostgreSQL is not installed. Stop it with Stop.
func Start(tb testing.TB) *Cluster {
	tb.Helper()
	return StartOn(tb)
}

// StartOn is Start, the server listening on the addresses given beside
// 127.0.0.1 (a veth pair's, for clients in a network namespace), and
// taking clients of the networks it is on.
func StartOn(tb testing.TB, listen ...string) *Cluster {
	tb.Helper()
	c, err := StartCluster(listen...)
	if err != nil {
		if os.Getenv("HEED_POSTGRES") == "required" {
			tb.Fatalf("pgtest: %v", err)
		}
		tb.Skipf("pgtest: %v", err)
	}
	return c
}

// StartCluster starts a cluster, for a TestMain, listening on 127.0.0.1
// and the addresses given; an error says why it could not (no
// binaries, first of all).
func StartCluster(listen ...string) (*Cluster, error) {
	bin, err := bindir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "heed-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, and no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte("pw\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run("initdb", "-D", data, "-U", "heed", "--pwfile", pwfile, "-A", "scram-sha-256", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if len(listen) > 0 {
		hba, err := os.OpenFile(filepath.Join(data, "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = hba.WriteString("host all all samenet scram-sha-256\n")
			hba.Close()
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	opts := fmt.Sprintf("-h %s -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off", strings.Join(append([]string{"127.0.0.1"}, listen...), ","), c.port, dir)
	if out, err := c.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	c.URL = fmt.Sprintf("postgres://heed:pw@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	return c, nil
}

func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	argv := append(append([]string{}, c.as...), append([]string{filepath.Join(c.bin, name)}, args...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// Database makes a new empty database and returns its URL.
func (c *Cluster) Database(tb testing.TB) string {
	tb.Helper()
	// One at a time: CREATE DATABASE copies template1, and refuses to
	// while another session (another CREATE DATABASE) uses it.
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	name := fmt.Sprintf("t%d", c.n)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	for try := 0; ; try++ {
		_, err = conn.Exec(ctx, "CREATE DATABASE "+name)
		// Still busy: a session of the last test lets go of template1.
		if err == nil || try == 20 || !strings.Contains(err.Error(), "55006") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	return fmt.Sprintf("postgres://heed:pw@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// Stop stops the server and removes its files.
func (c *Cluster) Stop() {
	c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(c.dir)
}
