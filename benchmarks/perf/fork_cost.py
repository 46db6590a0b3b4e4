import os, sys, time, importlib, gc, resource
mods = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else []
for m in mods: importlib.import_module(m)
gc.collect(); gc.freeze()
def ru(): r = resource.getrusage(resource.RUSAGE_SELF); c = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime+r.ru_stime, c.ru_utime+c.ru_stime
N=100
rss = int(open('/proc/self/statm').read().split()[1])*4096/1e6
s0,c0=ru(); t0=time.perf_counter(); tf=0
for _ in range(N):
    a=time.perf_counter(); pid=os.fork()
    if pid==0: os._exit(0)
    tf+=time.perf_counter()-a
    os.waitpid(pid,0)
s1,c1=ru(); w=time.perf_counter()-t0
print(f"{sys.argv[1][:40] or 'bare':<40} rss {rss:6.0f} MB  wall/fork+exit {1000*w/N:6.2f} ms (fork call {1000*tf/N:.2f})  cpu parent {1000*(s1-s0)/N:.2f} child {1000*(c1-c0)/N:.2f} ms")
