package devkafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// host is the only address the cluster and the registry listen on.
const host = "127.0.0.1"

// shutdownTimeout bounds how long Close waits for running registry requests.
const shutdownTimeout = 5 * time.Second

// Options configure Start. The zero value starts Kafka and the registry on
// random free ports with one partition per auto-sized topic.
type Options struct {
	// Port is the Kafka listener port on 127.0.0.1; 0 picks a random free
	// port.
	Port int
	// RegistryPort is the schema registry port on 127.0.0.1; 0 picks a
	// random free port and -1 runs no registry.
	RegistryPort int
	// Partitions is the partition count of topics created with -1
	// partitions. Default (0): 1.
	Partitions int
	// Logger receives kfake's and the registry server's diagnostics.
	// Default (nil): discard.
	Logger *slog.Logger
}

// Cluster is a running local Kafka cluster and schema registry. Its methods
// are safe for concurrent use.
type Cluster struct {
	kafka     *kfake.Cluster
	bootstrap string

	registry    *srfake.Registry
	registrySrv *http.Server
	registryURL string
	serveErr    error // set by the serving goroutine before wg.Done
	wg          sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// PortInUseError reports that a port Start was asked to bind is taken.
type PortInUseError struct {
	// Service is "Kafka" or "schema registry".
	Service string
	// Port is the port that was asked for.
	Port int
	// Err is the error from listening.
	Err error
}

// Error says which service's port is taken.
func (e *PortInUseError) Error() string {
	return fmt.Sprintf("%s port %d on %s is already in use", e.Service, e.Port, host)
}

// Unwrap returns the listening error (syscall.EADDRINUSE on Unix).
func (e *PortInUseError) Unwrap() error { return e.Err }

// Start starts Kafka (kfake, one broker) on 127.0.0.1:opts.Port and, unless
// opts.RegistryPort is -1, the schema registry (srfake) on
// 127.0.0.1:opts.RegistryPort. Both are listening when Start returns. A
// taken port is a *PortInUseError. ctx bounds the start only: the cluster
// runs until Close.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("invalid Kafka port %d: use 0 (random) to 65535", opts.Port)
	}
	if opts.RegistryPort < -1 || opts.RegistryPort > 65535 {
		return nil, fmt.Errorf("invalid schema registry port %d: use -1 (none), 0 (random) to 65535", opts.RegistryPort)
	}
	if opts.Partitions < 0 {
		return nil, fmt.Errorf("invalid partition count %d: use 1 or more", opts.Partitions)
	}
	if opts.Partitions == 0 {
		opts.Partitions = 1
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}

	c := &Cluster{}
	// The registry binds first: a listener is cheap to release if Kafka
	// then fails, a started kfake cluster less so.
	var regLn net.Listener
	if opts.RegistryPort >= 0 {
		ln, err := listen("schema registry", opts.RegistryPort)
		if err != nil {
			return nil, err
		}
		regLn = ln
	}

	kc, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.Ports(opts.Port),
		kfake.DefaultNumPartitions(opts.Partitions),
		kfake.ClusterID("eddy-dev"),
		kfake.WithLogger(kfakeLogger{logger}),
		kfake.ListenFn(listenLoopback),
	)
	if err != nil {
		if regLn != nil {
			_ = regLn.Close()
		}
		return nil, err
	}
	c.kafka = kc
	addrs := kc.ListenAddrs()
	if len(addrs) != 1 {
		kc.Close()
		if regLn != nil {
			_ = regLn.Close()
		}
		return nil, fmt.Errorf("kfake listens on %d addresses, want 1", len(addrs))
	}
	c.bootstrap = addrs[0]

	if regLn != nil {
		c.registry = srfake.NewRegistry()
		c.registrySrv = &http.Server{
			Handler:           c.registry.Handler(),
			ReadHeaderTimeout: 10 * time.Second,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
		c.registryURL = "http://" + regLn.Addr().String()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			if err := c.registrySrv.Serve(regLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Error("schema registry stopped serving", "err", err)
				c.serveErr = fmt.Errorf("schema registry: %w", err)
			}
		}()
	}
	logger.Info("devkafka started", "bootstrap", c.bootstrap, "registry", c.registryURL)
	return c, nil
}

// listen listens on 127.0.0.1:port for service.
func listen(service string, port int) (net.Listener, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, &PortInUseError{Service: service, Port: port, Err: err}
		}
		return nil, fmt.Errorf("listening for %s on %s:%d: %w", service, host, port, err)
	}
	return ln, nil
}

// listenLoopback is kfake's listen function: it refuses any address but
// 127.0.0.1 (kfake listens there today; this keeps it so) and turns a
// taken port into a *PortInUseError.
func listenLoopback(network, addr string) (net.Listener, error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || h != host || network != "tcp" {
		return nil, fmt.Errorf("refusing to listen for Kafka on %s %s: only tcp on %s is allowed", network, addr, host)
	}
	return listen("Kafka", port)
}

// Bootstrap returns the Kafka bootstrap address, "127.0.0.1:port".
func (c *Cluster) Bootstrap() string { return c.bootstrap }

// RegistryURL returns the schema registry's URL, "http://127.0.0.1:port",
// or "" when Start ran no registry.
func (c *Cluster) RegistryURL() string { return c.registryURL }

// Kafka returns the kfake cluster, for tests that need its controls
// (Control, MoveTopicPartition, ...). Do not Close it directly.
func (c *Cluster) Kafka() *kfake.Cluster { return c.kafka }

// Registry returns the srfake registry (for interceptors, seeding), or nil
// when Start ran no registry.
func (c *Cluster) Registry() *srfake.Registry { return c.registry }

// Close stops the registry and the Kafka cluster and releases their ports.
// It waits for running registry requests (at most 5s), then for the
// registry's serving goroutine. Only the first call does anything; later
// calls return the first call's result.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() {
		var errs []error
		if c.registrySrv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
			if err := c.registrySrv.Shutdown(ctx); err != nil {
				_ = c.registrySrv.Close()
			}
			cancel()
			c.wg.Wait()
			if c.serveErr != nil {
				errs = append(errs, c.serveErr)
			}
		}
		c.kafka.Close()
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}

// kfakeLogger forwards kfake's printf-style logs to a slog.Logger.
type kfakeLogger struct{ l *slog.Logger }

// Logf logs msg at the slog level matching level.
func (k kfakeLogger) Logf(level kfake.LogLevel, msg string, args ...any) {
	var lv slog.Level
	switch level {
	case kfake.LogLevelError:
		lv = slog.LevelError
	case kfake.LogLevelWarn:
		lv = slog.LevelWarn
	case kfake.LogLevelInfo:
		lv = slog.LevelInfo
	case kfake.LogLevelDebug:
		lv = slog.LevelDebug
	default:
		return
	}
	ctx := context.Background()
	if !k.l.Enabled(ctx, lv) {
		return
	}
	k.l.Log(ctx, lv, fmt.Sprintf(msg, args...), "component", "kfake")
}
