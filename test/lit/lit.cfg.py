# lit configuration for kiln: every .hlo/.test/.pbtxt file under this folder is a test.
import os
import shutil

import lit.formats

config.name = "kiln"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo", ".test", ".pbtxt", ".onnxtxt"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_binary_dir, "test", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.kiln_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
config.substitutions.append(("%kiln", os.path.join(config.kiln_tools_dir, "kiln")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%src", config.kiln_source_dir))

# Models written as text: %onnx-encode turns ModelProto text into a binary
# .onnx with protoc and the project's schema; %tfproto is protoc on the
# project's TensorFlow protos (binary GraphDefs, configs).
proto_root = os.path.join(config.kiln_source_dir, "proto")
config.substitutions.append(
    ("%onnx-encode",
     "protoc --encode=kiln.onnxpb.ModelProto -I {0} {0}/onnx/onnx.proto".format(proto_root)))
config.substitutions.append(("%tfproto", "protoc -I " + proto_root))

# %ulimit-v N caps a command's virtual memory (the budget tests). Under
# AddressSanitizer, whose shadow memory alone reserves terabytes of address
# space, it is a no-op: the command still runs and must still fail cleanly.
sanitized = config.kiln_sanitize.upper() in ("ON", "1", "TRUE", "YES")
config.substitutions.append(("%ulimit-v", ":" if sanitized else "ulimit -v"))
# Tests of allocations the system refuses need the limit: without it a
# sanitized kiln would be given, and touch, terabytes.
if sanitized:
    config.available_features.add("kiln-sanitize")

# Graphviz's dot: tests of the SVG that --emit dot writes when it is there.
if shutil.which("dot"):
    config.available_features.add("graphviz")
