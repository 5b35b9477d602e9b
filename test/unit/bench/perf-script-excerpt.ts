// Samples from a real `perf record -F 999 -a -g` of `live-heavy` on the development machine (Node
// 24.21, perf 6.1), printed by `perf script -F comm,pid,tid,time,ip,sym,dso` and trimmed: call chains
// cut after a few frames, the node binary's path shortened. pid 6901 is the bridge (the benchmark's
// scenario process), 6955 the simulator, 22 and 7038 other processes, 0 the idle task.
const NODE = '/usr/bin/node';
const BUILD = 'file:///work/wt/perftool/.bench-build/run-6250';

export const EXCERPT = `ingest-0  6901/7015  75738.231016: 
	          c811fb v8::internal::JsonParser<unsigned char>::ScanJsonString (${NODE})
	          c8db3d v8::internal::JsonParser<unsigned char>::ParseJsonObject (${NODE})
	          c8f11a v8::internal::JsonParser<unsigned char>::ParseJson (${NODE})
	          8f9cdb v8::internal::Builtin_JsonParse (${NODE})
	         16dd8f6 Builtins_CEntry_Return1_ArgvOnStack_BuiltinExit (${NODE})
	    7f2a5c153e42 JS:+'push ${BUILD}/src/stream/sequenced-stream.js:52:9 (/tmp/perf-6901.map)
	    7f2a5c1816da JS:+deliver ${BUILD}/src/stream/connection-reader.js:28:21 (/tmp/perf-6901.map)
	    7f2a5c0ef826 JS:^onData ${BUILD}/src/stream/connection-reader.js:87:24 (/tmp/perf-6901.map)

ingest-0  6901/7015  75738.230015: 
	    7f2a5c1b2a43 JS:*'writeFramedRecord ${BUILD}/src/wire/encode-record.js:60:34 (/tmp/perf-6901.map)
	    7f2a5c133357 JS:*feed ${BUILD}/src/upstream/http-response-parser.js:203:13 (/tmp/perf-6901.map)
	    7f2a5c14e008 JS:+'acked ${BUILD}/src/ingest/outbox.js:169:10 (/tmp/perf-6901.map)

ingest-0  6901/7015  75738.232011: 
	         16b2c41 Builtins_FindOrderedHashMapEntry (${NODE})
	    7f2a5c124096 JS:*'writeKeyValue ${BUILD}/src/wire/encode-record.js:26:23 (/tmp/perf-6901.map)
	    7f2a5c1b2aea JS:*'writeFramedRecord ${BUILD}/src/wire/encode-record.js:60:34 (/tmp/perf-6901.map)

MainThread  6901/6901  75738.162953: 
	ffffffff8136d045 set_user_sigmask ([kernel.kallsyms])
	ffffffff81731b36 __x64_sys_epoll_pwait ([kernel.kallsyms])
	ffffffff821ed511 do_syscall_64 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])
	          108cae epoll_pwait (/usr/lib/x86_64-linux-gnu/libc.so.6)

MainThread  6901/6901  75738.469265: 
	    7f2a941a6aaa JS:+' node:internal/validators:98:3 (/tmp/perf-6901.map)
	    7f2a9418beb6 JS:+'unpackBatch ${BUILD}/src/ingest/outbox.js:184:28 (/tmp/perf-6901.map)
	    7f2a94164ea8 JS:^received ${BUILD}/src/ingest/worker-group.js:238:13 (/tmp/perf-6901.map)

MainThread  6901/6901  75741.783570: 
	          bc67cb v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot> (${NODE})
	          bdfb31 v8::internal::Scavenger::ScavengePage (${NODE})
	          be6878 v8::internal::ScavengerCollector::CollectGarbage (${NODE})
	          b0b92b v8::internal::Heap::Scavenge (${NODE})
	          b25f25 v8::internal::Heap::CollectGarbage (${NODE})
	          b90ad1 v8::internal::MinorGCJob::Task::RunInternal (${NODE})
	         160cbb7 uv_run (${NODE})

V8Worker  6901/6909  75739.684519: 
	          a975be v8::internal::BodyDescriptorBase::IteratePointers<v8::internal::ConcurrentMarkingVisitor> (${NODE})
	          a998da v8::internal::ConcurrentMarking::RunMajor (${NODE})
	          a9d4dc v8::internal::ConcurrentMarking::JobTaskMajor::Run (${NODE})
	         1c7da55 v8::platform::DefaultJobWorker::Run (${NODE})

V8Worker  6901/6905  75739.849684: 
	          bf729f v8::internal::Sweeper::RawSweep (${NODE})
	          bfabc1 v8::internal::Sweeper::MajorSweeperJob::RunImpl (${NODE})
	         1c7da55 v8::platform::DefaultJobWorker::Run (${NODE})

V8Worker  6901/6909  75739.565400: 
	         119dde7 v8::internal::maglev::NodeMultiProcessor<v8::internal::maglev::DeadNodeSweepingProcessor, v8::internal::maglev::DecompressedUseMarkingProcessor>::Process<v8::internal::maglev::StoreTaggedFieldNoWriteBarrier> (${NODE})
	         11ed7e9 v8::internal::maglev::MaglevCompiler::Compile (${NODE})
	          92a28b v8::internal::OptimizedCompilationJob::ExecuteJob (${NODE})

MainThread  6955/6955  75738.347132: 
	    7f2e0015d500 JS:+'writeHttpChunk ${BUILD}/src/devkit/simulator/http-chunk.js:9:31 (/tmp/perf-6955.map)
	    7f2e001647ab JS:+'writeFrames ${BUILD}/src/devkit/simulator/stream-connection.js:147:16 (/tmp/perf-6955.map)

ksoftirqd/1    22/22    75738.249083: 
	ffffffff822016f7 _raw_spin_lock ([kernel.kallsyms])
	ffffffff820347b1 tcp_v4_rcv ([kernel.kallsyms])
	ffffffff81ff62b8 ip_protocol_deliver_rcu ([kernel.kallsyms])

libuv-worker  7038/7055  75745.854644: 
	ffffffff816ca027 inode_permission ([kernel.kallsyms])
	ffffffff816b57dd __x64_sys_openat ([kernel.kallsyms])
	           f8090 __GI___libc_open (/usr/lib/x86_64-linux-gnu/libc.so.6)
	75696d6f7268632f [unknown] ([unknown])

swapper     0/0     75744.506307: 
	ffffffff821f2c2b pv_native_safe_halt ([kernel.kallsyms])
	ffffffff821f4735 default_idle ([kernel.kallsyms])
	ffffffff813c3a84 do_idle ([kernel.kallsyms])
`;
