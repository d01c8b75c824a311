"""ResNet-50 v1.5: training step and inference, AMP fp16/bf16, channels_last.

The model comes from torchvision.models.resnet50(weights=None) when
torchvision imports (torchvision's ResNet-50 is v1.5: stride 2 on the 3x3
convolution of the bottleneck); otherwise from the local definition below,
which has the same layers and parameter count (25,557,032).  Weights are
random, inputs are random images and labels; nothing is downloaded.

Training step: zero_grad, forward and cross-entropy under autocast, backward,
SGD with momentum 0.9 and weight decay 1e-4.  fp16 training uses a static
loss scale of 1024 (a GradScaler cannot be captured in a CUDA graph).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from harness import Case, Prepared

FAMILY = "resnet"
BUDGET_S = 70.0
CUDNN_BENCHMARK = True  # as torchvision's reference training scripts

WORKLOAD = {
    "family": "cnn",
    "name": "resnet50_v1.5",
    "depth": 50,
    "blocks": [3, 4, 6, 3],
    "widths": [256, 512, 1024, 2048],
    "bottleneck_stride_on": "conv3x3",
    "classes": 1000,
    "params": 25557032,
}


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1,
                               bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                nn.BatchNorm2d(cout))

    def forward(self, x):
        idn = x if self.down is None else self.down(x)
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return F.relu(y + idn)


class ResNet50(nn.Module):
    """Local ResNet-50 v1.5, used only when torchvision is missing."""

    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        layers, cin = [], 64
        for i, (n, width) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512])):
            for j in range(n):
                stride = 2 if (j == 0 and i > 0) else 1
                layers.append(Bottleneck(cin, width, stride))
                cin = width * 4
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(2048, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 3, stride=2, padding=1)
        x = self.layers(x)
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


def build_model():
    try:
        import torchvision
        try:
            m = torchvision.models.resnet50(weights=None)
        except TypeError:  # torchvision < 0.13
            m = torchvision.models.resnet50(pretrained=False)
        return m, "torchvision.models.resnet50(weights=None)"
    except ImportError:
        return ResNet50(), "local definition (validation/torch/wl_resnet.py)"


def make_setup(mode, precision, batch, image):
    def setup(ctx):
        model, source = build_model()
        model = model.to(ctx.device, memory_format=torch.channels_last)
        x = torch.randn(batch, 3, image, image, device=ctx.device)
        x = x.contiguous(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (batch,), device=ctx.device)
        extra = {"model_source": source, "autocast_cache": False}
        if mode == "train":
            model.train()
            scale = 1024.0 if precision == "fp16" else 1.0
            opt = torch.optim.SGD(model.parameters(), lr=0.1 / scale,
                                  momentum=0.9, weight_decay=1e-4)
            extra.update({"optimizer": "SGD(momentum=0.9, weight_decay=1e-4)",
                          "loss": "cross_entropy", "loss_scale": scale})

            def step():
                opt.zero_grad(set_to_none=True)
                with ctx.autocast(precision):
                    loss = F.cross_entropy(model(x), y)
                (loss * scale).backward()
                opt.step()
                return loss.detach()
            return Prepared(step, inference=False, extra=extra)

        model.eval()

        def step():
            with torch.no_grad(), ctx.autocast(precision):
                return model(x)
        return Prepared(step, inference=True, extra=extra)
    return setup


def cases(ctx):
    if ctx.quick:
        plan = [("train", "bf16", 4, 64, ("eager", "graph")),
                ("infer", "fp16", 4, 64, ("eager", "graph"))]
    else:
        plan = [("train", "bf16", 64, 224, ("eager", "graph")),
                ("train", "bf16", 256, 224, ("eager",)),
                ("train", "fp16", 256, 224, ("eager",)),
                ("infer", "fp16", 64, 224, ("eager", "graph")),
                ("infer", "fp16", 256, 224, ("eager", "graph")),
                ("infer", "bf16", 256, 224, ("eager",))]
    out = []
    for mode, prec, batch, image, runtimes in plan:
        cfg = {
            "workload": WORKLOAD,
            "mode": mode,
            "batch": batch,
            "image": [3, image, image],
            "precision": prec,
            "amp": True,
            "weights_dtype": "fp32",
            "channels_last": True,
            "layers_run": WORKLOAD["depth"],
        }
        if not ctx.cuda and prec == "fp16":
            cfg["precision_effective"] = "bf16"
        out.append(Case("torch/resnet50/%s/%s/b%d" % (mode, prec, batch), cfg,
                        make_setup(mode, prec, batch, image),
                        runtimes=runtimes, items=batch, item="images",
                        time_s=1.0 if ctx.quick else 2.5))
    return out
