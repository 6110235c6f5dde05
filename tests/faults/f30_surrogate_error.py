# (red team c01, session 15) a lone surrogate in the error text and raw invalid UTF-8 on the output:
import os, sys
import torch
import torch.nn as nn
# raw invalid UTF-8 on the candidate's stdout and stderr at import
os.write(1, b"\xff\xfe\xed\xa0\x80 {\"status\": \"ok\"}\n\x00\n")
os.write(2, b"\xc3\x28\xed\xb2\x80\n")

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        raise RuntimeError("bad \ud800 lone \udcff surrogate \x00 nul " + os.fsdecode(b"\xff\xfe"))
