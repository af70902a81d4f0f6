#!/usr/bin/python3
"""make_models.py - Writes the small ONNX control-flow models that run_models.py compares with
ONNX Runtime (suite onnx): each exercises a path of kiln's If/Loop/Scan lowering that ONNX's node
tests do not. The .onnx files are checked in; rerun this after changing a model here.

- loop_masked: a Loop whose condition is computed from the input (40 x halves while its sum
  exceeds 1, at most 8 times): kiln unrolls 8 iterations and masks the carried values once the
  condition is false.
- loop_scan: a Loop with a constant trip count (5), a carried running sum and two scan outputs
  (the running sum and the iteration number as float).
- scan_reverse: Scan (opset 16) over two inputs, one along axis 1 in reverse, with a carried state
  and scan outputs along axis 1, one of them reversed.
- if_runtime: an If on a condition computed from the input, branches of equal shapes (both are
  computed, then selected).
"""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def const(name, dtype, dims, values):
    return helper.make_node('Constant', [], [name], name=name,
                            value=helper.make_tensor(name + '_v', dtype, dims, values))


def save(name, graph, opset):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)],
                              producer_name='kiln test/models/controlflow/make_models.py')
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + '.onnx'))


def loop_masked():
    body = helper.make_graph(
        [const('half', F, [], [0.5]), const('threshold', F, [], [1.0]),
         helper.make_node('Mul', ['x_in', 'half'], ['x_out'], name='halve'),
         helper.make_node('ReduceSum', ['x_out'], ['total'], name='total', keepdims=0),
         helper.make_node('Greater', ['total', 'threshold'], ['cond_out'], name='still_big')],
        'body',
        [helper.make_tensor_value_info('i', I64, []),
         helper.make_tensor_value_info('cond_in', B, []),
         helper.make_tensor_value_info('x_in', F, [4])],
        [helper.make_tensor_value_info('cond_out', B, []),
         helper.make_tensor_value_info('x_out', F, [4])])
    graph = helper.make_graph(
        [const('trips', I64, [], [8]), const('one', F, [], [1.0]), const('scale', F, [], [40.0]),
         helper.make_node('Mul', ['x', 'scale'], ['big'], name='scale_up'),
         helper.make_node('ReduceSum', ['big'], ['start_total'], name='start_total', keepdims=0),
         helper.make_node('Greater', ['start_total', 'one'], ['cond'], name='start_big'),
         helper.make_node('Loop', ['trips', 'cond', 'big'], ['y'], name='shrink', body=body)],
        'loop_masked',
        [helper.make_tensor_value_info('x', F, [4])],
        [helper.make_tensor_value_info('y', F, [4])])
    save('loop_masked', graph, 13)


def loop_scan():
    body = helper.make_graph(
        [helper.make_node('Add', ['sum_in', 'x'], ['sum_out'], name='accumulate'),
         helper.make_node('Identity', ['cond_in'], ['cond_out'], name='keep_going'),
         helper.make_node('Identity', ['sum_out'], ['partial'], name='partial'),
         helper.make_node('Cast', ['i'], ['step'], name='step', to=F)],
        'body',
        [helper.make_tensor_value_info('i', I64, []),
         helper.make_tensor_value_info('cond_in', B, []),
         helper.make_tensor_value_info('sum_in', F, [2, 3])],
        [helper.make_tensor_value_info('cond_out', B, []),
         helper.make_tensor_value_info('sum_out', F, [2, 3]),
         helper.make_tensor_value_info('partial', F, [2, 3]),
         helper.make_tensor_value_info('step', F, [])])
    graph = helper.make_graph(
        [const('trips', I64, [], [5]), const('yes', B, [], [True]),
         const('zero', F, [2, 3], [0.0] * 6),
         helper.make_node('Loop', ['trips', 'yes', 'zero'], ['total', 'partials', 'steps'],
                          name='accumulate_loop', body=body)],
        'loop_scan',
        [helper.make_tensor_value_info('x', F, [2, 3])],
        [helper.make_tensor_value_info('total', F, [2, 3]),
         helper.make_tensor_value_info('partials', F, [5, 2, 3]),
         helper.make_tensor_value_info('steps', F, [5])])
    save('loop_scan', graph, 13)


def scan_reverse():
    body = helper.make_graph(
        [helper.make_node('Mul', ['a', 'b'], ['ab'], name='product'),
         helper.make_node('Add', ['state_in', 'ab'], ['state_out'], name='accumulate'),
         helper.make_node('Tanh', ['state_out'], ['squashed'], name='squash'),
         helper.make_node('Neg', ['a'], ['negated'], name='negate')],
        'body',
        [helper.make_tensor_value_info('state_in', F, [2]),
         helper.make_tensor_value_info('a', F, [2]),
         helper.make_tensor_value_info('b', F, [2])],
        [helper.make_tensor_value_info('state_out', F, [2]),
         helper.make_tensor_value_info('squashed', F, [2]),
         helper.make_tensor_value_info('negated', F, [2])])
    graph = helper.make_graph(
        [helper.make_node('Scan', ['init', 'xs', 'ys'], ['final', 'trace', 'negs'],
                          name='scan', body=body, num_scan_inputs=2,
                          scan_input_axes=[1, 0], scan_input_directions=[1, 0],
                          scan_output_axes=[1, -2], scan_output_directions=[0, 1])],
        'scan_reverse',
        [helper.make_tensor_value_info('init', F, [2]),
         helper.make_tensor_value_info('xs', F, [2, 6]),
         helper.make_tensor_value_info('ys', F, [6, 2])],
        [helper.make_tensor_value_info('final', F, [2]),
         helper.make_tensor_value_info('trace', F, [2, 6]),
         helper.make_tensor_value_info('negs', F, [6, 2])])
    save('scan_reverse', graph, 16)


def if_runtime():
    then_branch = helper.make_graph(
        [helper.make_node('Exp', ['x'], ['grown'], name='grow')], 'then', [],
        [helper.make_tensor_value_info('grown', F, [3, 2])])
    else_branch = helper.make_graph(
        [helper.make_node('Sigmoid', ['x'], ['squashed'], name='squash')], 'else', [],
        [helper.make_tensor_value_info('squashed', F, [3, 2])])
    graph = helper.make_graph(
        [helper.make_node('ReduceMean', ['x'], ['mean'], name='mean', keepdims=0),
         const('half', F, [], [0.5]),
         helper.make_node('Less', ['mean', 'half'], ['small'], name='small'),
         helper.make_node('If', ['small'], ['y'], name='pick',
                          then_branch=then_branch, else_branch=else_branch)],
        'if_runtime',
        [helper.make_tensor_value_info('x', F, [3, 2])],
        [helper.make_tensor_value_info('y', F, [3, 2])])
    save('if_runtime', graph, 13)


if __name__ == '__main__':
    loop_masked()
    loop_scan()
    scan_reverse()
    if_runtime()
