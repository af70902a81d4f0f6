#!/usr/bin/env python3
"""Independent NumPy reference for test/unit/NnLoweringTest.cpp: direct loops for
convolution and its input gradient, np.matmul for the products. Run with a Python that
has numpy and paste the printed lists into the test."""
import numpy as np
np.set_printoptions(precision=9, suppress=True, linewidth=200)
def conv_nhwc(x, k, stride, dil, pads, groups=1):
    # x [N,H,W,C], k [KH,KW,C/g,O]; pads ((pt,pb),(pl,pr))
    x = np.pad(x, ((0,0),pads[0],pads[1],(0,0)))
    N,H,W,C = x.shape; KH,KW,CI,O = k.shape
    ekh=(KH-1)*dil[0]+1; ekw=(KW-1)*dil[1]+1
    OH=(H-ekh)//stride[0]+1; OW=(W-ekw)//stride[1]+1
    y=np.zeros((N,OH,OW,O))
    og=O//groups
    for n in range(N):
      for oh in range(OH):
        for ow in range(OW):
          for o in range(O):
            g=o//og; s=0.0
            for i in range(KH):
              for j in range(KW):
                for c in range(CI):
                  s+=x[n,oh*stride[0]+i*dil[0],ow*stride[1]+j*dil[1],g*CI+c]*k[i,j,c,o]
            y[n,oh,ow,o]=s
    return y
# case 1: SAME stride 2, 1x5x5x1 iota, kernel 3x3 arange
x=np.arange(25,dtype=np.float64).reshape(1,5,5,1)
k=np.arange(9,dtype=np.float64).reshape(3,3,1,1)
print("case1", conv_nhwc(x,k,(2,2),(1,1),((1,1),(1,1))).ravel().tolist())
# case 2: NCHW groups 2, dilation 2, pads (1,0,0,2)(top,left,bottom,right) -> onnx pads [1,0,0,2]
xc=(np.arange(2*4*5*5)%7-3).astype(np.float64).reshape(2,4,5,5)*0.5
w=(np.arange(6*2*2*2)%5-2).astype(np.float64).reshape(6,2,2,2)  # O=6, C/g=2, 2x2
bias=np.array([1,-1,0.5,0,2,-2.])
y=conv_nhwc(xc.transpose(0,2,3,1), w.transpose(2,3,1,0),(1,2),(2,1),((1,0),(0,2)),groups=2)+bias
print("case2 shape", y.transpose(0,3,1,2).shape)
print("case2", y.transpose(0,3,1,2).ravel().tolist())
# case 3: depthwise NHWC C=2 M=2
x3=(np.arange(1*4*4*2)%9).astype(np.float64).reshape(1,4,4,2)
k3=(np.arange(2*2*2*2)%4-1).astype(np.float64).reshape(2,2,2,2)
k3r=k3.reshape(2,2,1,4)
print("case3", conv_nhwc(x3,k3r,(1,1),(1,1),((0,1),(0,1)),groups=2).ravel().tolist())
# case 4: transposed conv = gradient of conv. x [1,3,3,1] stride 2 kernel 3x3 SAME to output 6x6 (TF Conv2DBackpropInput)
def conv_transpose(g, k, out_hw, stride, pads):
    # g [N,OH,OW,Cout_fwd], k fwd [KH,KW,Cin_fwd,Cout_fwd]; result [N,H,W,Cin_fwd]
    N,OH,OW,CO=g.shape; KH,KW,CI,_=k.shape
    H,W=out_hw
    r=np.zeros((N,H+pads[0][0]+pads[0][1]+KH,W+pads[1][0]+pads[1][1]+KW,CI))
    for n in range(N):
      for oh in range(OH):
        for ow in range(OW):
          for i in range(KH):
            for j in range(KW):
              r[n,oh*stride[0]+i,ow*stride[1]+j,:]+=k[i,j,:,:]@g[n,oh,ow,:]
    return r[:,pads[0][0]:pads[0][0]+H,pads[1][0]:pads[1][0]+W,:]
g=np.arange(9,dtype=np.float64).reshape(1,3,3,1)+1
k4=np.arange(9*2,dtype=np.float64).reshape(3,3,2,1)*0.25
# SAME for in=6,k=3,s=2: out=3,total=max(0,(3-1)*2+3-6)=1 -> (0,1)
print("case4", conv_transpose(g,k4,(6,6),(2,2),((0,1),(0,1))).ravel().tolist())
# case 5 avgpool same exclude pad 3x3 input, 2x2 window stride 1 -> pads (0,1)
x5=np.arange(9,dtype=np.float64).reshape(3,3)+1
out=np.zeros((3,3))
for i in range(3):
  for j in range(3):
    win=x5[i:i+2,j:j+2]; out[i,j]=win.mean()
print("case5", out.ravel().tolist())
# case 7 batch matmul broadcast: a [2,1,2,3], b [3,3,2]
a=np.arange(12,dtype=np.float64).reshape(2,1,2,3)-5
bb=np.arange(18,dtype=np.float64).reshape(3,3,2)*0.5
print("case7 shape", np.matmul(a,bb).shape); print("case7", np.matmul(a,bb).ravel().tolist())
v=np.array([1.,2,3]); print("case7b", np.matmul(v,bb).shape, np.matmul(v,bb).ravel().tolist())
print("case7c", np.matmul(a, v).shape, np.matmul(a, v).ravel().tolist())
# case 8 adj
m1=np.arange(6.).reshape(2,3); m2=np.arange(8.).reshape(4,2)
print("case8", (m1.T@m2.T).ravel().tolist())
