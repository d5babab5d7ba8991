variable "region" {
  default = "eu"
}

resource "aws_instance" "web" {
  ami = var.ami
  tags = { Name = "web" }
}

module "vpc" {
  source = "./vpc"
}
locals {
  x = 1
}
